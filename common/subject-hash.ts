// A stable, keyed hash of a phone number: workflow IDs and search attributes are not encrypted, so they
// may carry this hash but never the number itself.
import { createHmac, hkdfSync } from 'node:crypto';
import type { CodecKey } from './codec.js';

export type SubjectHasher = (identity: string) => string;

/** Keyed by the LAST codec key (the oldest), so rotating in a new encryption key keeps the IDs stable. */
export function subjectHasher(keys: CodecKey[]): SubjectHasher {
  const base = keys[keys.length - 1]!.key;
  const key = Buffer.from(hkdfSync('sha256', base, Buffer.alloc(0), 'relayflow subject hash', 32));
  return (identity) => createHmac('sha256', key).update(identity).digest('base64url').slice(0, 27);
}
