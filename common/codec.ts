// AES-256-GCM payload codec: every Temporal payload (inputs, results, signals, updates, queries,
// failures' details) leaves the process encrypted, so phone numbers, codes and names never reach the
// Temporal server or its database in clear. Runs in the client and in the worker's main thread
// (never inside workflow code), so node:crypto is available.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { access, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { METADATA_ENCODING_KEY, ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
// @temporalio/proto is CommonJS: in native ESM only its default export is reliable.
import proto from '@temporalio/proto';

const { Payload: PayloadMessage } = proto.temporal.api.common.v1;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const METADATA_KEY_ID = 'encryption-key-id';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_PATTERN = /^[A-Za-z0-9._-]+$/;
// Strict standard base64: Buffer.from(…, 'base64') silently skips junk, which would hide typos.
const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface CodecKey {
  id: string;
  /** 32 bytes (AES-256). */
  key: Buffer;
}

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const text = (b: Uint8Array | null | undefined): string | undefined => (b ? Buffer.from(b).toString('utf8') : undefined);

export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keys = new Map<string, Buffer>();
  private readonly current: CodecKey;

  /** The first key encrypts; every key decrypts, so old histories stay readable after a rotation. */
  constructor(keys: CodecKey[]) {
    const [first] = keys;
    if (!first) throw new Error('AesGcmPayloadCodec: at least one key is required');
    for (const { id, key } of keys) {
      if (!KEY_ID_PATTERN.test(id)) throw new Error(`AesGcmPayloadCodec: key id "${id}" must match ${KEY_ID_PATTERN.source}`);
      if (key.length !== KEY_BYTES) throw new Error(`AesGcmPayloadCodec: key "${id}" must be ${KEY_BYTES} bytes (got ${key.length})`);
      if (this.keys.has(id)) throw new Error(`AesGcmPayloadCodec: key id "${id}" appears more than once`);
      this.keys.set(id, Buffer.from(key));
    }
    this.current = { id: first.id, key: this.keys.get(first.id)! };
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      // Idempotent: a payload that passes through twice (e.g. the codec endpoint) is not wrapped again.
      if (text(payload.metadata?.[METADATA_ENCODING_KEY]) === ENCRYPTED_ENCODING) return payload;
      // The whole payload, metadata included, is encrypted: the encoding alone can reveal a type.
      const plain = PayloadMessage.encode(payload).finish();
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { [METADATA_ENCODING_KEY]: utf8(ENCRYPTED_ENCODING), [METADATA_KEY_ID]: utf8(this.current.id) },
        data,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCRYPTED_ENCODING) return payload;
      const keyId = text(payload.metadata?.[METADATA_KEY_ID]);
      if (!keyId) throw new ValueError('Encrypted payload has no encryption-key-id');
      const key = this.keys.get(keyId);
      if (!key) throw new ValueError(`Encrypted payload uses unknown encryption key id "${keyId}"`);
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES) throw new ValueError(`Encrypted payload (key "${keyId}") is truncated`);
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      } catch {
        // GCM's tag check failed: wrong key material or altered bytes. Never fall back to the raw data.
        throw new ValueError(`Encrypted payload (key "${keyId}") failed authentication: tampered or wrong key`);
      }
      return PayloadMessage.decode(plain);
    });
  }
}

/**
 * Parses `id:base64key[,id2:base64key2]` (first entry encrypts). Errors name the variable and the
 * rule, and never echo key material.
 */
export function parseCodecKeys(value: string, variableName: string): CodecKey[] {
  const fail = (rule: string): never => {
    throw new Error(`${variableName}: ${rule}`);
  };
  if (!value.trim()) fail('must be set to "id:base64key[,id2:base64key2]" (got an empty value)');
  const seen = new Set<string>();
  return value.split(',').map((raw, index) => {
    const entry = raw.trim();
    const position = `entry ${index + 1}`;
    if (!entry) fail(`${position} is empty; expected "id:base64key[,id2:base64key2]"`);
    const colon = entry.indexOf(':');
    if (colon < 0) fail(`${position} must have the form "id:base64key" (no ":" found)`);
    const id = entry.slice(0, colon).trim();
    const encoded = entry.slice(colon + 1).trim();
    // An invalid id may be a pasted key, so only its position is named.
    if (!KEY_ID_PATTERN.test(id)) fail(`${position} has an invalid key id: ids must be non-empty and match [A-Za-z0-9._-]+`);
    if (seen.has(id)) fail(`key id "${id}" appears more than once: ids must be unique`);
    seen.add(id);
    if (!BASE64_PATTERN.test(encoded)) fail(`key "${id}" must be ${KEY_BYTES} bytes of base64 (not valid base64)`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== KEY_BYTES) fail(`key "${id}" must be ${KEY_BYTES} bytes of base64 (got ${key.length})`);
    return { id, key };
  });
}

/** `id:base64` of 32 random bytes; the default id carries the date so rotations sort naturally. */
export function generateCodecKey(id?: string): string {
  const keyId = id ?? `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(3).toString('hex')}`;
  if (!KEY_ID_PATTERN.test(keyId)) throw new Error(`generateCodecKey: key id must match [A-Za-z0-9._-]+`);
  return `${keyId}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

/**
 * Development only: one key kept in `<dataDir>/codec-keys`, so a restarted dev server can still read
 * the histories it wrote. Created once with mode 0600; validated on every read.
 */
export async function loadOrCreateDevCodecKeys(dataDir: string): Promise<string> {
  const file = join(dataDir, 'codec-keys');
  if (!(await exists(file))) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    // Write a private temp file, then link it into place: link() fails if the file exists, so two
    // processes starting together never overwrite each other's key nor read a half-written file.
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temp, `${generateCodecKey('dev')}\n`, { flag: 'wx', mode: 0o600 });
    try {
      await link(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      await unlink(temp);
    }
  }
  const value = (await readFile(file, 'utf8')).trim();
  parseCodecKeys(value, file); // a hand-edited file fails here, naming the file
  return value;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
