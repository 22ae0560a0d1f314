// Short secrets relayflow keeps in its store (event subscriptions' signing secrets) sealed with the payload codec's
// keys (RELAYFLOW_CODEC_KEYS): a copy of the database alone cannot sign as relayflow. AES-256-GCM, the first key
// seals, every key opens, so a key rotation leaves what was sealed readable.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { CodecKey } from './codec.js';

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Sealer {
  seal(plain: string): string;
  /** A value sealed with any of the keys; a value never sealed (kept before sealing existed) as it is. */
  open(value: string): string;
}

export function sealerOf(keys: readonly CodecKey[]): Sealer {
  const [current] = keys;
  if (!current) throw new Error('sealerOf: at least one key is required');
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(current.id));
      const data = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${current.id}:${data.toString('base64')}`;
    },
    open(value) {
      if (!value.startsWith(PREFIX)) return value;
      const rest = value.slice(PREFIX.length);
      const colon = rest.indexOf(':');
      const id = rest.slice(0, colon);
      const key = byId.get(id);
      if (!key) throw new Error(`a sealed secret uses unknown key id "${id}" (RELAYFLOW_CODEC_KEYS)`);
      const data = Buffer.from(rest.slice(colon + 1), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(id));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      return Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
