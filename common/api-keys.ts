// API keys and their scopes: RELAYFLOW_API_KEYS (plain keys, admin: the format before scopes) plus the keys
// file RELAYFLOW_API_KEYS_FILE, read at start-up and again on SIGHUP (api/key-reload.ts). Errors name the file
// and line, never the key.
import { readFileSync } from 'node:fs';

/** Each scope includes the ones before it. */
export const SCOPES = ['read-only', 'operator', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export const MIN_KEY_LENGTH = 24;
const MAX_PER_MINUTE = 10_000_000;

export interface ApiKeyEntry {
  key: string;
  scope: Scope;
  /** This key's own request limit per minute (default: RELAYFLOW_RATE_LIMIT_PER_MINUTE). */
  perMinute?: number;
  /** The one customer this key acts for: it starts, sees and acts on that customer's processes only. */
  tenant?: string;
}

/** A customer's name: safe in a visibility query, a log line and a URL as it is. */
export const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const TENANT_RULE = '1 to 64 letters, digits, "-" or "_", starting with a letter or digit';

export class ApiKeysError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiKeysError';
  }
}

/**
 * The keys file: one key per line, `<key> <scope> [<requests per minute>] [tenant=<customer>]`, separated by spaces
 * or tabs; blank lines and lines starting with `#` are ignored. A key with a tenant acts for that customer only.
 */
export function parseKeysFile(text: string, file: string, envKeys: readonly string[] = []): ApiKeyEntry[] {
  const entries: ApiKeyEntry[] = [];
  const lineOf = new Map<string, number>();
  const fail = (line: number, rule: string) => {
    throw new ApiKeysError('RELAYFLOW_API_KEYS_FILE', `${file} line ${line}: ${rule}`);
  };
  const form = '"<key> <scope> [<requests per minute>] [tenant=<customer>]"';
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = i + 1;
    const trimmed = raw.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const [key, scope, ...optional] = trimmed.split(/\s+/) as [string, ...string[]];
    if (!scope) fail(line, `expected ${form}; the scope is missing`);
    const tenants = optional.filter((f) => f.startsWith('tenant='));
    const limits = optional.filter((f) => !f.startsWith('tenant='));
    if (tenants.length > 1 || limits.length > 1) fail(line, `expected ${form}; found ${optional.length + 2} fields`);
    const [perMinute] = limits;
    const tenant = tenants[0]?.slice('tenant='.length);
    if (key.length < MIN_KEY_LENGTH) fail(line, `the key must be at least ${MIN_KEY_LENGTH} characters`);
    if (!(SCOPES as readonly string[]).includes(scope!)) fail(line, `unknown scope "${scope}" (one of ${SCOPES.join(', ')})`);
    if (perMinute !== undefined && (!/^\d+$/.test(perMinute) || Number(perMinute) < 1 || Number(perMinute) > MAX_PER_MINUTE)) {
      fail(line, `requests per minute must be a whole number from 1 to ${MAX_PER_MINUTE} (got "${perMinute}")`);
    }
    if (tenant !== undefined && !TENANT_PATTERN.test(tenant)) fail(line, `the tenant must be ${TENANT_RULE} (got "${tenant}")`);
    if (lineOf.has(key)) fail(line, `the same key as line ${lineOf.get(key)}`);
    if (envKeys.includes(key)) fail(line, 'the key is also in RELAYFLOW_API_KEYS (give each key one scope)');
    lineOf.set(key, line);
    entries.push({ key, scope: scope as Scope, ...(perMinute ? { perMinute: Number(perMinute) } : {}), ...(tenant ? { tenant } : {}) });
  }
  return entries;
}

export interface ApiKeySource {
  /** RELAYFLOW_API_KEYS: admin keys, fixed for the life of the process. */
  envKeys: string[];
  /** RELAYFLOW_API_KEYS_FILE, re-read on every load. */
  file?: string;
}

/** Every key the API accepts: the environment's (admin) then the file's. At least one, each key once. */
export function loadApiKeys({ envKeys, file }: ApiKeySource): ApiKeyEntry[] {
  const entries: ApiKeyEntry[] = envKeys.map((key) => ({ key, scope: 'admin' }));
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ApiKeysError('RELAYFLOW_API_KEYS_FILE', `${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    entries.push(...parseKeysFile(text, file, envKeys));
  }
  if (entries.length === 0) {
    throw new ApiKeysError(
      file ? 'RELAYFLOW_API_KEYS_FILE' : 'RELAYFLOW_API_KEYS',
      `no API keys: set RELAYFLOW_API_KEYS (comma-separated) or list keys in RELAYFLOW_API_KEYS_FILE${file ? ` (${file} has none)` : ''}`,
    );
  }
  return entries;
}

/** How many keys each scope has, for logs (never the keys). */
export function countByScope(entries: ApiKeyEntry[]): Record<Scope, number> {
  const counts = Object.fromEntries(SCOPES.map((s) => [s, 0])) as Record<Scope, number>;
  for (const e of entries) counts[e.scope] += 1;
  return counts;
}
