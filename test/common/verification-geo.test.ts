// The geo permissions' rule matching (common/verification-geo.ts): what libphonenumber says a number is, which
// rule decides for each method, and how the configuration's rules are checked.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateCodecKey } from '../../common/codec.js';
import { loadConfig } from '../../common/config.js';
import {
  allowsEverything,
  decideGeo,
  describeGeoDecision,
  geoRuleProblems,
  numberFacts,
  parseGeoRules,
  type GeoRule,
  type GeoRuleSet,
} from '../../common/verification-geo.js';

const SE_MOBILE = '+46700000001';
const SE_PREMIUM = '+46900123456';
const GB_PREMIUM = '+449098790000';
const GB_FIXED = '+442079460000';
const GB_TOLL_FREE = '+448001234567';
const US_NUMBER = '+12025550123';
const US_PREMIUM = '+19005550123';
const FR_MOBILE = '+33612345678';
const INTERNATIONAL_FREEPHONE = '+80012345678';

const set = (api: GeoRule[], config: GeoRule[] = [], defaultAction: 'allow' | 'block' = 'allow'): GeoRuleSet => ({
  api,
  config,
  defaultAction,
  defaultSource: 'config',
});
const decide = (s: GeoRuleSet, number: string, method: string) => decideGeo(s, numberFacts(number), method);

describe('geo permissions: what a number is', () => {
  test("libphonenumber's full metadata tells the types the small one cannot", () => {
    assert.deepEqual(numberFacts(SE_MOBILE), { country: 'SE', callingCode: '+46', numberType: 'mobile' });
    assert.deepEqual(numberFacts(SE_PREMIUM), { country: 'SE', callingCode: '+46', numberType: 'premium_rate' });
    assert.deepEqual(numberFacts(GB_PREMIUM), { country: 'GB', callingCode: '+44', numberType: 'premium_rate' });
    assert.deepEqual(numberFacts(GB_FIXED), { country: 'GB', callingCode: '+44', numberType: 'fixed_line' });
    assert.deepEqual(numberFacts(GB_TOLL_FREE), { country: 'GB', callingCode: '+44', numberType: 'toll_free' });
    assert.deepEqual(numberFacts(FR_MOBILE), { country: 'FR', callingCode: '+33', numberType: 'mobile' });
  });

  test('+1 numbers in the US are fixed_line_or_mobile; premium +1 900 is premium_rate; +800 has no country', () => {
    assert.deepEqual(numberFacts(US_NUMBER), { country: 'US', callingCode: '+1', numberType: 'fixed_line_or_mobile' });
    assert.equal(numberFacts(US_PREMIUM).numberType, 'premium_rate');
    assert.deepEqual(numberFacts(INTERNATIONAL_FREEPHONE), { callingCode: '+800', numberType: 'toll_free' });
  });
});

describe('geo permissions: which rule decides', () => {
  const noPremiumSms: GeoRule = { id: 'no-premium-sms', action: 'block', numberTypes: ['premium_rate'], methods: ['sms'] };

  test('a rule matches its countries, types and methods together; absent means any', () => {
    const s = set([noPremiumSms, { id: 'no-gb-calls', action: 'block', countries: ['GB'], methods: ['callout', 'flashcall'] }]);
    assert.equal(decide(s, GB_PREMIUM, 'sms').allowed, false);
    assert.equal(decide(s, SE_PREMIUM, 'sms').allowed, false, 'any country');
    assert.equal(decide(s, GB_PREMIUM, 'seamless').allowed, true, 'another method');
    assert.equal(decide(s, SE_MOBILE, 'sms').allowed, true, 'another type');
    assert.equal(decide(s, GB_FIXED, 'callout').rule?.id, 'no-gb-calls');
    assert.equal(decide(s, GB_FIXED, 'flashcall').allowed, false);
    assert.equal(decide(s, FR_MOBILE, 'callout').allowed, true, 'another country');
    assert.equal(decide(s, SE_MOBILE, 'sms').rule, undefined, 'no rule matched: the default decided');
  });

  test('whatsapp is a method the rules match like the others (parsed from configuration too)', () => {
    const [rule] = parseGeoRules(JSON.stringify([{ id: 'no-fr-whatsapp', action: 'block', countries: ['FR'], methods: ['whatsapp'] }]));
    const s = set([rule!]);
    assert.equal(decide(s, FR_MOBILE, 'whatsapp').rule?.id, 'no-fr-whatsapp');
    assert.equal(decide(s, FR_MOBILE, 'whatsapp').allowed, false);
    assert.equal(decide(s, FR_MOBILE, 'sms').allowed, true, 'another method');
    assert.equal(decide(s, SE_MOBILE, 'whatsapp').allowed, true, 'another country');
  });

  test('the first matching rule wins: an allow-list before a block-all', () => {
    const s = set([
      { id: 'sms-to-mobiles', action: 'allow', numberTypes: ['mobile', 'fixed_line_or_mobile'], methods: ['sms'] },
      { id: 'no-other-sms', action: 'block', methods: ['sms'] },
    ]);
    assert.equal(decide(s, SE_MOBILE, 'sms').rule?.id, 'sms-to-mobiles');
    assert.equal(decide(s, US_NUMBER, 'sms').allowed, true, '+1 numbers are fixed_line_or_mobile');
    assert.equal(decide(s, GB_FIXED, 'sms').rule?.id, 'no-other-sms');
    assert.equal(decide(s, GB_FIXED, 'sms').allowed, false);
    assert.equal(decide(s, GB_FIXED, 'callout').allowed, true, 'the block names sms only');
  });

  test("the API's rules come before the configuration's, and a configured rule decides when none of the API's matches", () => {
    const config: GeoRule[] = [{ id: 'no-gb', action: 'block', countries: ['GB'] }];
    const s = set([{ id: 'gb-fixed-callout', action: 'allow', countries: ['GB'], numberTypes: ['fixed_line'], methods: ['callout'] }], config);
    assert.deepEqual(decide(s, GB_FIXED, 'callout').rule, { id: 'gb-fixed-callout', source: 'api', action: 'allow' });
    assert.deepEqual(decide(s, GB_FIXED, 'sms').rule, { id: 'no-gb', source: 'config', action: 'block' });
  });

  test('a default of block refuses what no rule allows; numbers of no country match only rules without countries', () => {
    const s = set([{ id: 'nordics', action: 'allow', countries: ['SE', 'NO', 'DK', 'FI'] }], [], 'block');
    assert.equal(decide(s, SE_MOBILE, 'flashcall').allowed, true);
    const refused = decide(s, FR_MOBILE, 'sms');
    assert.equal(refused.allowed, false);
    assert.equal(refused.rule, undefined);
    assert.equal(decide(s, INTERNATIONAL_FREEPHONE, 'sms').allowed, false);
    assert.equal(decide(set([{ id: 'freephone', action: 'block', numberTypes: ['toll_free'] }]), INTERNATIONAL_FREEPHONE, 'sms').allowed, false);
    assert.equal(decide(set([{ id: 'gb', action: 'block', countries: ['GB'] }]), INTERNATIONAL_FREEPHONE, 'sms').allowed, true);
  });

  test('the words name the calling code, country, type, method and rule, never the number', () => {
    const s = set([noPremiumSms]);
    const text = describeGeoDecision(decide(s, GB_PREMIUM, 'sms'));
    assert.equal(text, '+44 (GB) premium rate numbers are blocked for sms by rule no-premium-sms (set through the API)');
    assert.ok(!text.includes('9098790000'));
    assert.equal(
      describeGeoDecision(decide(set([], [], 'block'), FR_MOBILE, 'callout')),
      '+33 (FR) mobile numbers are blocked for callout by the default action (block, RELAYFLOW_VERIFICATION_GEO_DEFAULT)',
    );
    assert.match(describeGeoDecision(decide(set([], [noPremiumSms]), SE_PREMIUM, 'sms')), /by rule no-premium-sms \(RELAYFLOW_VERIFICATION_GEO_RULES\)$/);
  });

  test('allowsEverything: only with an allow default and no block rule', () => {
    assert.equal(allowsEverything(set([])), true);
    assert.equal(allowsEverything(set([{ id: 'a', action: 'allow', countries: ['SE'] }])), true);
    assert.equal(allowsEverything(set([], [noPremiumSms])), false);
    assert.equal(allowsEverything(set([], [], 'block')), false);
  });
});

describe('geo permissions: the configured rules', () => {
  const env = (rules?: string, defaultAction?: string) =>
    loadConfig({
      RELAYFLOW_API_KEYS: 'a-very-long-api-key-for-tests-000',
      RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'),
      PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
      ...(rules !== undefined ? { RELAYFLOW_VERIFICATION_GEO_RULES: rules } : {}),
      ...(defaultAction !== undefined ? { RELAYFLOW_VERIFICATION_GEO_DEFAULT: defaultAction } : {}),
    }).processes.verification.geo;

  test('defaults: no rules, allow, a 2 s cache', () => {
    assert.deepEqual(env(), { rules: [], defaultAction: 'allow', cacheMs: 2000 });
  });

  test('a JSON array of rules, and the default action', () => {
    const geo = env('[{"id":"no-premium-sms","action":"block","numberTypes":["premium_rate"],"methods":["sms"]}]', 'block');
    assert.deepEqual(geo.rules, [{ id: 'no-premium-sms', action: 'block', numberTypes: ['premium_rate'], methods: ['sms'] }]);
    assert.equal(geo.defaultAction, 'block');
  });

  test('every problem is named with the variable and where it is', () => {
    assert.throws(
      () => env('[{"id":"x","action":"block","countries":["UK"]}]'),
      /^ConfigError: RELAYFLOW_VERIFICATION_GEO_RULES: \[0\]\.countries\[0\]: "UK" .*did you mean GB\?/,
    );
    assert.throws(() => env('{"id":"x"}'), /RELAYFLOW_VERIFICATION_GEO_RULES: must be a JSON array of rules/);
    assert.throws(() => env('[oops'), /RELAYFLOW_VERIFICATION_GEO_RULES: is not JSON/);
    assert.throws(() => env('[]', 'deny'), /RELAYFLOW_VERIFICATION_GEO_DEFAULT: must be one of allow, block \(got "deny"\)/);
  });

  test('geoRuleProblems: types, methods, ids, empty lists, unknown fields', () => {
    assert.deepEqual(
      geoRuleProblems([
        { id: 'a', action: 'block', numberTypes: ['premium'], methods: ['telegram'], extra: 1 },
        { id: 'a', action: 'drop', countries: [] },
        { action: 'allow' },
      ]),
      [
        '[0].extra: is not a known field',
        '[0].numberTypes[0]: "premium" is not one of mobile, fixed_line, fixed_line_or_mobile, premium_rate, toll_free, shared_cost, voip, personal_number, pager, uan, voicemail, unknown',
        '[0].methods[0]: "telegram" is not one of sms, flashcall, callout, seamless, whatsapp',
        '[1].id: "a" is also the id of [0]',
        '[1].action: must be one of allow, block',
        '[1].countries: must be a non-empty array (leave it out to match any)',
        '[2].id: is required: 1 to 64 of A-Z a-z 0-9 . _ - (starting with a letter or digit)',
      ],
    );
    assert.deepEqual(parseGeoRules('[]'), []);
  });
});
