// Rate limits of verification starts by key: a caller passes values of named keys with a start
// (`rateLimits: {ip: "203.0.113.7", user: "u-42"}`, as Twilio Verify's RateLimits map does), and each configured
// limit counts the starts per value of its key, per country or per number prefix, over a sliding window. Pure: the
// configuration parses the limits with it, the API picks a start's buckets with it; the counting itself is durable
// (one bucket workflow per limit and value, processes/verification/routes/rate-limits.ts).
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

const RATE_LIMIT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
/** The names a caller may give its keys under (`ip`, `user`, `session`, or its own). */
export const RATE_LIMIT_KEY_PATTERN = '^[a-z][a-z0-9_]{0,31}$';
const MAX_RATE_LIMITS = 50;
/** Keys a start may carry. */
export const MAX_RATE_LIMIT_KEYS = 10;

export interface RateLimit {
  /** Named in every refusal it causes and in the metric's `limit` label. */
  id: string;
  /** Counts per value of this caller key (`ip`, `user`, ...); the start's `rateLimits[key]`. */
  key?: string;
  /** Counts every start to a number of this country (ISO 3166-1 alpha-2)... */
  country?: string;
  /** ...or whose E.164 digits begin with these (`+4470`: the + is optional). */
  prefix?: string;
  max: number;
  windowMs: number;
}

/** One counter a start must pass: the limit, and the bucket's value (the caller's key value, the country or the prefix). */
export interface LimitBucket {
  limit: RateLimit;
  /** What the start is counted under: never logged or put in an ID as it is (IPs and user IDs are personal data). */
  value: string;
  /** The field a refusal names. */
  field: string;
}

/** The limits a start is counted against: each key limit whose key it carries, each country and prefix limit that matches its number. */
export function bucketsOf(limits: readonly RateLimit[], identity: string, keys: Readonly<Record<string, string>> = {}): LimitBucket[] {
  let country: string | undefined | null = null; // null: not looked up yet (libphonenumber's parse is not free)
  const digits = identity.replace(/^\+/, '');
  return limits.flatMap((limit): LimitBucket[] => {
    if (limit.key) {
      const value = keys[limit.key];
      return value === undefined ? [] : [{ limit, value, field: `body.rateLimits.${limit.key}` }];
    }
    if (limit.prefix) return digits.startsWith(limit.prefix) ? [{ limit, value: limit.prefix, field: 'body.identity' }] : [];
    if (country === null) country = parsePhoneNumberFromString(identity)?.country;
    return limit.country && country === limit.country ? [{ limit, value: limit.country, field: 'body.identity' }] : [];
  });
}

/** `10 verifications per ip per 1 h`: how a refusal names a limit (no value in it). */
export function describeLimit(limit: RateLimit): string {
  const per = limit.key ? `per ${limit.key}` : limit.country ? `to ${limit.country} numbers` : `to numbers beginning +${limit.prefix}`;
  return `at most ${limit.max} verifications ${per} per ${describeWindow(limit.windowMs)} (limit ${limit.id})`;
}

function describeWindow(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.ceil(ms / 1000)} s`;
}

/**
 * RELAYFLOW_VERIFICATION_RATE_LIMITS: a JSON array of `{id, key | country | prefix, max, windowSeconds}`.
 * Throws an Error naming the entry and field; the configuration wraps it in a ConfigError naming the variable.
 */
export function parseRateLimits(text: string): RateLimit[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('must be a JSON array of limits');
  }
  if (!Array.isArray(raw)) throw new Error('must be a JSON array of limits');
  if (raw.length > MAX_RATE_LIMITS) throw new Error(`at most ${MAX_RATE_LIMITS} limits`);
  const ids = new Set<string>();
  return raw.map((entry: unknown, i) => {
    const at = `[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`${at}: must be an object`);
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !['id', 'key', 'country', 'prefix', 'max', 'windowSeconds', 'note'].includes(k));
    if (unknown.length) throw new Error(`${at}.${unknown[0]}: not a field of a limit (id, key, country, prefix, max, windowSeconds, note)`);
    if (typeof e.id !== 'string' || !new RegExp(RATE_LIMIT_ID_PATTERN).test(e.id)) throw new Error(`${at}.id: must match ${RATE_LIMIT_ID_PATTERN}`);
    if (ids.has(e.id)) throw new Error(`${at}.id: "${e.id}" is used twice`);
    ids.add(e.id);
    const scopes = (['key', 'country', 'prefix'] as const).filter((k) => e[k] !== undefined);
    if (scopes.length !== 1) throw new Error(`${at}: give exactly one of key, country, prefix`);
    if (e.key !== undefined && (typeof e.key !== 'string' || !new RegExp(RATE_LIMIT_KEY_PATTERN).test(e.key)))
      throw new Error(`${at}.key: must match ${RATE_LIMIT_KEY_PATTERN}`);
    if (e.country !== undefined && (typeof e.country !== 'string' || !/^[A-Z]{2}$/.test(e.country)))
      throw new Error(`${at}.country: must be an ISO 3166-1 alpha-2 code in capitals, e.g. GB`);
    if (e.prefix !== undefined && (typeof e.prefix !== 'string' || !/^\+?[1-9][0-9]{0,14}$/.test(e.prefix)))
      throw new Error(`${at}.prefix: must be 1-15 digits (a leading + allowed), e.g. +4470`);
    if (!Number.isInteger(e.max) || (e.max as number) < 1 || (e.max as number) > 1_000_000) throw new Error(`${at}.max: must be an integer 1-1000000`);
    const seconds = e.windowSeconds;
    if (!Number.isInteger(seconds) || (seconds as number) < 1 || (seconds as number) > 30 * 86_400)
      throw new Error(`${at}.windowSeconds: must be an integer 1-2592000 (30 days)`);
    return {
      id: e.id,
      ...(e.key !== undefined ? { key: e.key as string } : {}),
      ...(e.country !== undefined ? { country: e.country as string } : {}),
      ...(e.prefix !== undefined ? { prefix: (e.prefix as string).replace(/^\+/, '') } : {}),
      max: e.max as number,
      windowMs: (seconds as number) * 1000,
    };
  });
}
