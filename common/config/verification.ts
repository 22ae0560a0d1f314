// Phone verification: time per method, codes and resends, the per-number guard, geo permissions, rate limits and
// the SMS-pumping guard.
import Type, { type Static } from 'typebox';
import { GEO_ACTIONS, parseGeoRules, type GeoAction, type GeoRule } from '../verification-geo.js';
import { parseRateLimits, type RateLimit } from '../verification-limits.js';
import { VERIFICATION_METHODS, type VerificationMethod } from '../wire/verification.js';
import { ConfigError, type Problems } from './errors.js';
import { millis, oneOf, optionalText, whole } from './fields.js';

export interface VerificationSettings {
  /** Default time per fallback step, by method. */
  stepTimeoutMs: Record<VerificationMethod, number>;
  codeExpiryMs: number;
  maxReportAttempts: number;
  resendCooldownMs: number;
  maxResends: number;
  /** At most guardMax verifications started per number per guardWindowMs, across all processes. */
  guardMax: number;
  guardWindowMs: number;
  /** Geo permissions (common/verification-geo.ts): the configured rules and default, under those set through the API. */
  geo: GeoSettings;
  /** Limits by the caller's keys, by country and by prefix (common/verification-limits.ts): RELAYFLOW_VERIFICATION_RATE_LIMITS. */
  rateLimits: RateLimit[];
  /** The SMS-pumping guard (common/verification-pumping.ts). */
  pumping: PumpingSettings;
}

export interface PumpingSettings {
  enabled: boolean;
  /** A number is judged under its first this many digits (country code included). */
  prefixDigits: number;
  windowMs: number;
  minStarts: number;
  /** 0-1: below this share of starts reported correctly, with minStarts in the window, the prefix is blocked. */
  floor: number;
  /** block: refuse (429 pumping_suspected); a method: start with that method alone instead. */
  action: 'block' | VerificationMethod;
  /** How long an API instance keeps a prefix's guard state it read. */
  cacheMs: number;
}

export interface GeoSettings {
  rules: GeoRule[];
  defaultAction: GeoAction;
  /** How long an API instance keeps the rules it read: a change through the API reaches every instance within it. */
  cacheMs: number;
}

const DAY = 86_400_000;
const step = (fallback: number, method: string) => millis(fallback, 1_000, DAY, `default time of ${method} fallback step`);

export const VERIFICATION_VARIABLES = Type.Object({
  RELAYFLOW_VERIFICATION_SMS_TIMEOUT_MS: step(300_000, 'an SMS'),
  RELAYFLOW_VERIFICATION_FLASHCALL_TIMEOUT_MS: step(60_000, 'a FlashCall'),
  RELAYFLOW_VERIFICATION_CALLOUT_TIMEOUT_MS: step(120_000, 'a Phone Call'),
  RELAYFLOW_VERIFICATION_SEAMLESS_TIMEOUT_MS: step(60_000, 'a Data (seamless)'),
  RELAYFLOW_VERIFICATION_WHATSAPP_TIMEOUT_MS: step(300_000, 'a WhatsApp'),
  RELAYFLOW_VERIFICATION_CODE_EXPIRY_MS: millis(600_000, 1_000, DAY, 'a code is accepted this long after it was (re)sent'),
  RELAYFLOW_VERIFICATION_MAX_ATTEMPTS: whole(3, 1, 100, 'report attempts per verification (a wrong code counts)'),
  RELAYFLOW_VERIFICATION_RESEND_COOLDOWN_MS: millis(30_000, 0, DAY, 'the least time between two sends of a code'),
  RELAYFLOW_VERIFICATION_MAX_RESENDS: whole(3, 0, 100, 'resends per verification'),
  RELAYFLOW_VERIFICATION_GUARD_MAX: whole(5, 1, 1_000_000, 'at most this many verifications per number per guard window, across all processes'),
  RELAYFLOW_VERIFICATION_GUARD_WINDOW_MS: millis(3_600_000, 1_000, 30 * DAY, 'the per-number guard window'),
  RELAYFLOW_VERIFICATION_GEO_RULES: optionalText(
    'geo permissions: a JSON array of rules `{id, action: allow|block, countries?, numberTypes?, methods?, note?}`, checked after the rules set through `PUT /v1/verification-geo-rules`; the first that matches decides ([processes/verification.md, Geo permissions](processes/verification.md#geo-permissions)); a bad rule stops start-up naming it (`[1].countries[0]: "UK" ... did you mean GB?`)',
  ),
  RELAYFLOW_VERIFICATION_GEO_DEFAULT: oneOf([...GEO_ACTIONS], 'allow', 'what no rule matches gets, unless the API set a default'),
  RELAYFLOW_VERIFICATION_GEO_CACHE_MS: millis(
    2_000,
    0,
    60_000,
    'how long an API instance uses the rules it read before reading them again: a change through the API reaches every instance within it (0: read on every start)',
  ),
  RELAYFLOW_VERIFICATION_RATE_LIMITS: optionalText(
    'rate limits of verification starts: a JSON array of `{id, key | country | prefix, max, windowSeconds}`; `key` counts per value of `rateLimits[key]` in a start (`ip`, `user`, ...), `country` (ISO alpha-2) and `prefix` (digits, `+` optional) per destination; a bad entry stops start-up naming it (`[0].key: must match ...`) ([processes/verification.md](processes/verification.md#rate-limits-and-the-pumping-guard))',
  ),
  RELAYFLOW_VERIFICATION_PUMPING_GUARD: oneOf(['on', 'off'], 'on', 'the SMS-pumping guard per destination prefix', { 'x-rule': 'must be on or off' }),
  RELAYFLOW_VERIFICATION_PUMPING_PREFIX_DIGITS: whole(6, 2, 15, 'a number is judged under its first this many digits, country code included'),
  RELAYFLOW_VERIFICATION_PUMPING_WINDOW_MS: millis(
    3_600_000,
    1_000,
    7 * DAY,
    'the sliding window of starts and correct codes, and how long a block lasts unless lifted',
  ),
  RELAYFLOW_VERIFICATION_PUMPING_MIN_STARTS: whole(100, 1, 1_000_000, "starts in the window before a prefix's conversion is judged"),
  RELAYFLOW_VERIFICATION_PUMPING_FLOOR: Type.Number({
    default: 0.1,
    minimum: 0,
    maximum: 1,
    description: 'a prefix is blocked when under this share of its starts reported a correct code',
    'x-rule': 'must be a number from 0 to 1, e.g. 0.1',
  }),
  RELAYFLOW_VERIFICATION_PUMPING_ACTION: oneOf(
    ['block', ...VERIFICATION_METHODS],
    'block',
    '`block` (429 `pumping_suspected`), or a method a start to a blocked prefix is moved to (e.g. `flashcall`)',
    { 'x-rule': `must be block or a method to start instead (${VERIFICATION_METHODS.join(', ')})` },
  ),
  RELAYFLOW_VERIFICATION_PUMPING_CACHE_MS: millis(
    1_000,
    0,
    60_000,
    "how long an API instance uses a prefix's guard state it read from the store: a block or a lift through another instance reaches it within this (0: read on every start)",
  ),
});
type VerificationVars = Static<typeof VERIFICATION_VARIABLES>;

/** A JSON list parsed by its module, whose error names the entry and the field; this names the variable. */
function parsed<T>(name: string, text: string | undefined, parse: (text: string) => T[]): T[] {
  if (!text) return [];
  try {
    return parse(text);
  } catch (err) {
    throw new ConfigError(name, (err as Error).message);
  }
}

export function loadVerificationSettings(v: VerificationVars, problems: Problems): VerificationSettings {
  const geoRules = 'RELAYFLOW_VERIFICATION_GEO_RULES';
  const rateLimits = 'RELAYFLOW_VERIFICATION_RATE_LIMITS';
  return {
    stepTimeoutMs: {
      sms: v.RELAYFLOW_VERIFICATION_SMS_TIMEOUT_MS,
      flashcall: v.RELAYFLOW_VERIFICATION_FLASHCALL_TIMEOUT_MS,
      callout: v.RELAYFLOW_VERIFICATION_CALLOUT_TIMEOUT_MS,
      seamless: v.RELAYFLOW_VERIFICATION_SEAMLESS_TIMEOUT_MS,
      whatsapp: v.RELAYFLOW_VERIFICATION_WHATSAPP_TIMEOUT_MS,
    },
    codeExpiryMs: v.RELAYFLOW_VERIFICATION_CODE_EXPIRY_MS,
    maxReportAttempts: v.RELAYFLOW_VERIFICATION_MAX_ATTEMPTS,
    resendCooldownMs: v.RELAYFLOW_VERIFICATION_RESEND_COOLDOWN_MS,
    maxResends: v.RELAYFLOW_VERIFICATION_MAX_RESENDS,
    guardMax: v.RELAYFLOW_VERIFICATION_GUARD_MAX,
    guardWindowMs: v.RELAYFLOW_VERIFICATION_GUARD_WINDOW_MS,
    geo: {
      rules: problems.check([geoRules], () => parsed(geoRules, v.RELAYFLOW_VERIFICATION_GEO_RULES, parseGeoRules), []),
      defaultAction: v.RELAYFLOW_VERIFICATION_GEO_DEFAULT,
      cacheMs: v.RELAYFLOW_VERIFICATION_GEO_CACHE_MS,
    },
    rateLimits: problems.check([rateLimits], () => parsed(rateLimits, v.RELAYFLOW_VERIFICATION_RATE_LIMITS, parseRateLimits), []),
    pumping: {
      enabled: v.RELAYFLOW_VERIFICATION_PUMPING_GUARD === 'on',
      prefixDigits: v.RELAYFLOW_VERIFICATION_PUMPING_PREFIX_DIGITS,
      windowMs: v.RELAYFLOW_VERIFICATION_PUMPING_WINDOW_MS,
      minStarts: v.RELAYFLOW_VERIFICATION_PUMPING_MIN_STARTS,
      floor: v.RELAYFLOW_VERIFICATION_PUMPING_FLOOR,
      action: v.RELAYFLOW_VERIFICATION_PUMPING_ACTION,
      cacheMs: v.RELAYFLOW_VERIFICATION_PUMPING_CACHE_MS,
    },
  };
}
