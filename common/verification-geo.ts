// Geo permissions of verification starts: which countries and number types each method may reach.
// A rule set is the rules set through the API (kept by the geo-rules workflow), then the configured ones
// (RELAYFLOW_VERIFICATION_GEO_RULES), then a default action; the first rule that matches decides. What a number
// is (its country, its type) comes from libphonenumber's full metadata: the small one the API validates numbers
// with cannot tell most types. Pure: the API decides with it, the configuration checks its rules with it.
import { getCountries, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { VERIFICATION_METHODS, type VerificationMethod } from './wire/verification.js';

export const GEO_ACTIONS = ['allow', 'block'] as const;
export type GeoAction = (typeof GEO_ACTIONS)[number];

/**
 * libphonenumber's number types, in lower case, matched exactly: `fixed_line_or_mobile` is a type of its own (the
 * metadata cannot tell them apart, e.g. every +1 number in the US), and `unknown` a number whose type it cannot tell.
 */
export const GEO_NUMBER_TYPES = [
  'mobile',
  'fixed_line',
  'fixed_line_or_mobile',
  'premium_rate',
  'toll_free',
  'shared_cost',
  'voip',
  'personal_number',
  'pager',
  'uan',
  'voicemail',
  'unknown',
] as const;
type GeoNumberType = (typeof GEO_NUMBER_TYPES)[number];

/** ISO 3166-1 alpha-2 codes of every country and territory libphonenumber knows (each has a calling code), sorted. */
export const GEO_COUNTRIES: readonly string[] = [...getCountries()].sort();

export const GEO_RULE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
/** Rules per set (the API's, the configuration's). */
export const MAX_GEO_RULES = 200;

export interface GeoRule {
  /** Named in every refusal it causes and in the metric's `rule` label. */
  id: string;
  action: GeoAction;
  /** ISO 3166-1 alpha-2; absent: any country (numbers of no country, such as +800, match only such rules). */
  countries?: string[];
  /** Absent: any type. */
  numberTypes?: GeoNumberType[];
  /** Verification methods; absent: every method. */
  methods?: VerificationMethod[];
  note?: string;
}

/** Where a deciding rule came from: set through the API, or the configuration. */
type GeoRuleSource = 'api' | 'config';

export interface GeoRuleSet {
  /** Set through the API, checked first. */
  api: readonly GeoRule[];
  /** RELAYFLOW_VERIFICATION_GEO_RULES, checked next. */
  config: readonly GeoRule[];
  /** When no rule matches. */
  defaultAction: GeoAction;
  defaultSource: GeoRuleSource;
}

export interface NumberFacts {
  /** ISO 3166-1 alpha-2; absent for numbers of no country (+800, +882, ...). */
  country?: string;
  /** The calling code with its +, e.g. +44. */
  callingCode: string;
  numberType: GeoNumberType;
}

export interface GeoDecision {
  allowed: boolean;
  method: string;
  facts: NumberFacts;
  /** The rule that decided; absent when the default action did. */
  rule?: { id: string; source: GeoRuleSource; action: GeoAction };
  defaultSource?: GeoRuleSource;
}

/** What libphonenumber says of a number in E.164 (already validated). */
export function numberFacts(e164: string): NumberFacts {
  const parsed = parsePhoneNumberFromString(e164);
  const type = parsed?.getType();
  return {
    ...(parsed?.country ? { country: parsed.country } : {}),
    callingCode: parsed ? `+${parsed.countryCallingCode}` : (/^\+\d{1,3}/.exec(e164)?.[0] ?? '+'),
    numberType: type ? (type.toLowerCase() as GeoNumberType) : 'unknown',
  };
}

const matches = (rule: GeoRule, facts: NumberFacts, method: string) =>
  (!rule.countries || (facts.country !== undefined && rule.countries.includes(facts.country))) &&
  (!rule.numberTypes || rule.numberTypes.includes(facts.numberType)) &&
  (!rule.methods || (rule.methods as readonly string[]).includes(method));

/** The first matching rule decides (the API's, then the configuration's); none: the default action. */
export function decideGeo(set: GeoRuleSet, facts: NumberFacts, method: string): GeoDecision {
  for (const [source, rules] of [
    ['api', set.api],
    ['config', set.config],
  ] as const) {
    const rule = rules.find((r) => matches(r, facts, method));
    if (rule) return { allowed: rule.action === 'allow', method, facts, rule: { id: rule.id, source, action: rule.action } };
  }
  return { allowed: set.defaultAction === 'allow', method, facts, defaultSource: set.defaultSource };
}

/** True when no number can be refused: nothing to look up. */
export const allowsEverything = (set: GeoRuleSet) => set.defaultAction === 'allow' && ![...set.api, ...set.config].some((r) => r.action === 'block');

const SOURCE_WORDS: Record<GeoRuleSource, string> = { api: 'set through the API', config: 'RELAYFLOW_VERIFICATION_GEO_RULES' };

/**
 * The decision in words, naming the rule but never the number: `+44 (GB) premium rate numbers are blocked for sms
 * by rule no-premium-sms (set through the API)`.
 */
export function describeGeoDecision(d: GeoDecision): string {
  const where = d.facts.country ? `${d.facts.callingCode} (${d.facts.country})` : `${d.facts.callingCode} (no country)`;
  const type = d.facts.numberType === 'unknown' ? 'numbers of unknown type' : `${d.facts.numberType.replace(/_/g, ' ')} numbers`;
  const by = d.rule
    ? `by rule ${d.rule.id} (${SOURCE_WORDS[d.rule.source]})`
    : `by the default action (${d.allowed ? 'allow' : 'block'}, ${d.defaultSource === 'api' ? 'set through the API' : 'RELAYFLOW_VERIFICATION_GEO_DEFAULT'})`;
  return `${where} ${type} are ${d.allowed ? 'allowed' : 'blocked'} for ${d.method} ${by}`;
}

/** Common mistakes for ISO 3166-1 alpha-2 codes. */
const COUNTRY_HINTS: Record<string, string> = { UK: 'GB', EL: 'GR' };

/**
 * Every problem of a rule list, each naming where it is (`[1].countries[0]: ...`): the configuration's check. The
 * API's schema states the same rules (a 400 naming the field); duplicate IDs are its 422.
 */
export function geoRuleProblems(value: unknown): string[] {
  if (!Array.isArray(value)) return ['must be a JSON array of rules'];
  const problems: string[] = [];
  if (value.length > MAX_GEO_RULES) problems.push(`at most ${MAX_GEO_RULES} rules (found ${value.length})`);
  const seen = new Map<string, number>();
  value.forEach((rule: unknown, i) => {
    const at = `[${i}]`;
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) return void problems.push(`${at}: must be an object`);
    const r = rule as Record<string, unknown>;
    for (const key of Object.keys(r)) {
      if (!['id', 'action', 'countries', 'numberTypes', 'methods', 'note'].includes(key)) problems.push(`${at}.${key}: is not a known field`);
    }
    if (typeof r.id !== 'string' || !new RegExp(GEO_RULE_ID_PATTERN).test(r.id)) {
      problems.push(`${at}.id: is required: 1 to 64 of A-Z a-z 0-9 . _ - (starting with a letter or digit)`);
    } else if (seen.has(r.id)) {
      problems.push(`${at}.id: "${r.id}" is also the id of [${seen.get(r.id)}]`);
    } else seen.set(r.id, i);
    if (!(GEO_ACTIONS as readonly unknown[]).includes(r.action)) problems.push(`${at}.action: must be one of ${GEO_ACTIONS.join(', ')}`);
    const list = (field: string, allowed: readonly string[], what: (v: unknown) => string) => {
      const v = r[field];
      if (v === undefined) return;
      if (!Array.isArray(v) || v.length === 0) return void problems.push(`${at}.${field}: must be a non-empty array (leave it out to match any)`);
      v.forEach((x: unknown, j) => {
        if (typeof x !== 'string' || !allowed.includes(x)) problems.push(`${at}.${field}[${j}]: ${what(x)}`);
      });
    };
    list('countries', GEO_COUNTRIES, (x) => {
      const hint = typeof x === 'string' ? COUNTRY_HINTS[x.toUpperCase()] : undefined;
      return `${JSON.stringify(x)} is not an ISO 3166-1 alpha-2 code libphonenumber knows (upper case${hint ? `; did you mean ${hint}?` : ''})`;
    });
    list('numberTypes', GEO_NUMBER_TYPES, (x) => `${JSON.stringify(x)} is not one of ${GEO_NUMBER_TYPES.join(', ')}`);
    list('methods', VERIFICATION_METHODS, (x) => `${JSON.stringify(x)} is not one of ${VERIFICATION_METHODS.join(', ')}`);
    if (r.note !== undefined && (typeof r.note !== 'string' || r.note.length > 200)) problems.push(`${at}.note: must be text of at most 200 characters`);
  });
  return problems;
}

/** A rule list from its JSON text (the configuration's); throws naming each problem. */
export function parseGeoRules(text: string): GeoRule[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`is not JSON (${(err as Error).message})`);
  }
  const problems = geoRuleProblems(value);
  if (problems.length) throw new Error(problems.join('; '));
  return value as GeoRule[];
}
