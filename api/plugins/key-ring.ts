// The API keys the running API accepts, each with its scope; swapped whole on a reload (api/key-reload.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyEntry, Scope } from '../../common/api-keys.js';

/** A caller's API key ID: the first 12 hex characters of the key's SHA-256. Safe to log and to show. */
export const keyIdOf = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

/** Who a recognised key is: what logs, the audit and the rate limit see (never the key). */
export interface ApiKeyIdentity {
  keyId: string;
  scope: Scope;
  perMinute?: number;
  /** The customer a tenant key acts for; absent: every customer's processes. */
  tenant?: string;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export class KeyRing {
  private entries: Array<ApiKeyIdentity & { digest: Buffer }> = [];

  constructor(keys: ApiKeyEntry[]) {
    this.replace(keys);
  }

  /** Swaps in the new keys at once; answers the key IDs added and removed, for the log. */
  replace(keys: ApiKeyEntry[]): { added: string[]; removed: string[] } {
    const before = new Set(this.entries.map((e) => e.keyId));
    this.entries = keys.map(({ key, scope, perMinute, tenant }) => ({
      keyId: keyIdOf(key),
      scope,
      ...(perMinute ? { perMinute } : {}),
      ...(tenant ? { tenant } : {}),
      digest: digest(key),
    }));
    const after = new Set(this.entries.map((e) => e.keyId));
    return { added: [...after].filter((id) => !before.has(id)), removed: [...before].filter((id) => !after.has(id)) };
  }

  /** The identity of a presented key, or undefined when it is not one of ours. */
  identify(key: string | undefined): ApiKeyIdentity | undefined {
    if (!key) return undefined;
    // Compare fixed-length digests so neither the key nor its length leaks through timing.
    const d = digest(key);
    const found = this.entries.find((e) => timingSafeEqual(e.digest, d));
    if (!found) return undefined;
    const { digest: _, ...identity } = found;
    return identity;
  }
}
