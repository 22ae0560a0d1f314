// The verification limits' pure parts: the pumping guard's sliding-window arithmetic (common/verification-pumping.ts),
// which buckets a start is counted in and how a limit is named (common/verification-limits.ts), and the
// configuration's checks of both, each naming its variable.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateCodecKey } from '../../common/codec.js';
import { ConfigError, loadConfig } from '../../common/config.js';
import { bucketsOf, describeLimit, parseRateLimits, type RateLimit } from '../../common/verification-limits.js';
import { conversion, inWindow, looksLikePumping, pumpingPrefixOf, record, slotMsOf, totals, type PumpingSlot } from '../../common/verification-pumping.js';

const MIN = 60_000;
const WINDOW = 20 * MIN; // slots of one minute

describe('pumping guard: the sliding window', () => {
  test('a window of 20 slots; starts and successes land in the slot of their time', () => {
    assert.equal(slotMsOf(WINDOW), MIN);
    assert.equal(slotMsOf(7), 1, 'never a slot of 0 ms');
    let slots: PumpingSlot[] = [];
    const t0 = 100 * MIN + 5_000;
    slots = record(slots, t0, WINDOW, 'start');
    slots = record(slots, t0 + 10_000, WINDOW, 'start');
    slots = record(slots, t0 + 20_000, WINDOW, 'success');
    slots = record(slots, t0 + MIN, WINDOW, 'start');
    assert.deepEqual(slots, [
      { at: 100 * MIN, starts: 2, successes: 1 },
      { at: 101 * MIN, starts: 1, successes: 0 },
    ]);
    assert.deepEqual(totals(slots, t0 + MIN, WINDOW), { starts: 3, successes: 1 });
  });

  test('slots leave the window as it slides, and are dropped on the next record', () => {
    const slots: PumpingSlot[] = [
      { at: 100 * MIN, starts: 5, successes: 0 },
      { at: 110 * MIN, starts: 3, successes: 2 },
    ];
    // A slot counts while any of it is inside the window: [100, 101) is inside until 121 min.
    assert.deepEqual(totals(slots, 120 * MIN + 59_999, WINDOW), { starts: 8, successes: 2 });
    assert.deepEqual(totals(slots, 121 * MIN, WINDOW), { starts: 3, successes: 2 });
    assert.equal(inWindow(slots, 131 * MIN, WINDOW).length, 0);
    assert.deepEqual(record(slots, 125 * MIN, WINDOW, 'start'), [
      { at: 110 * MIN, starts: 3, successes: 2 },
      { at: 125 * MIN, starts: 1, successes: 0 },
    ]);
  });

  test('the state stays bounded whatever the traffic: at most one slot per twentieth of the window, plus one', () => {
    let slots: PumpingSlot[] = [];
    for (let t = 0; t < 3 * WINDOW; t += 7_000) slots = record(slots, t, WINDOW, t % 2 ? 'start' : 'success');
    assert.ok(slots.length <= 21, `${slots.length} slots`);
  });

  test('conversion and the verdict: enough starts and too few successes', () => {
    assert.equal(conversion({ starts: 0, successes: 0 }), 1, 'no starts: nothing to judge');
    assert.equal(conversion({ starts: 4, successes: 6 }), 1, 'successes of starts before the window: at most 1');
    const th = { minStarts: 10, floor: 0.2 };
    assert.equal(looksLikePumping({ starts: 9, successes: 0 }, th), false, 'not enough volume');
    assert.equal(looksLikePumping({ starts: 10, successes: 1 }, th), true);
    assert.equal(looksLikePumping({ starts: 10, successes: 2 }, th), false, 'at the floor is not under it');
  });

  test('the prefix: the first digits, country code included', () => {
    assert.equal(pumpingPrefixOf('+447700900123', 5), '44770');
    assert.equal(pumpingPrefixOf('+4670', 6), '4670');
  });
});

describe('rate limits by key, country and prefix', () => {
  const limits: RateLimit[] = [
    { id: 'per-ip', key: 'ip', max: 5, windowMs: 3_600_000 },
    { id: 'per-user', key: 'user', max: 3, windowMs: 600_000 },
    { id: 'sweden', country: 'SE', max: 100, windowMs: 60_000 },
    { id: 'uk-mobile', prefix: '447', max: 50, windowMs: 30_000 },
  ];

  test('a start is counted by each key it carries and each country or prefix its number matches', () => {
    const got = bucketsOf(limits, '+46701234567', { ip: '203.0.113.7', session: 's-1' });
    assert.deepEqual(
      got.map((b) => [b.limit.id, b.value, b.field]),
      [
        ['per-ip', '203.0.113.7', 'body.rateLimits.ip'],
        ['sweden', 'SE', 'body.identity'],
      ],
    );
    assert.deepEqual(
      bucketsOf(limits, '+447700900123', { user: 'u-1' }).map((b) => b.limit.id),
      ['per-user', 'uk-mobile'],
    );
    assert.deepEqual(bucketsOf([], '+447700900123', { ip: 'x' }), []);
  });

  test('a limit is named without any value', () => {
    assert.equal(describeLimit(limits[0]!), 'at most 5 verifications per ip per 1 h (limit per-ip)');
    assert.equal(describeLimit(limits[1]!), 'at most 3 verifications per user per 10 min (limit per-user)');
    assert.equal(describeLimit(limits[2]!), 'at most 100 verifications to SE numbers per 1 min (limit sweden)');
    assert.equal(describeLimit(limits[3]!), 'at most 50 verifications to numbers beginning +447 per 30 s (limit uk-mobile)');
  });

  test('parsed from JSON: windowSeconds, a + on the prefix dropped', () => {
    assert.deepEqual(parseRateLimits('[{"id":"per-ip","key":"ip","max":5,"windowSeconds":3600},{"id":"uk","prefix":"+447","max":9,"windowSeconds":60}]'), [
      { id: 'per-ip', key: 'ip', max: 5, windowMs: 3_600_000 },
      { id: 'uk', prefix: '447', max: 9, windowMs: 60_000 },
    ]);
  });
});

describe('the limits in the configuration', () => {
  const verification = (env: Record<string, string> = {}) =>
    loadConfig({
      RELAYFLOW_API_KEYS: 'a-very-long-api-key-for-tests-000',
      RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'),
      PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
      ...env,
    }).processes.verification;

  test('defaults: no rate limits; the pumping guard on, 6 digits, 1 h, 100 starts, 10 %, block', () => {
    const v = verification();
    assert.deepEqual(v.rateLimits, []);
    assert.deepEqual(v.pumping, { enabled: true, prefixDigits: 6, windowMs: 3_600_000, minStarts: 100, floor: 0.1, action: 'block', cacheMs: 1000 });
  });

  test('every problem names its variable, and the entry and field', () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ RELAYFLOW_VERIFICATION_RATE_LIMITS: '{"id":"x"}' }, /^RELAYFLOW_VERIFICATION_RATE_LIMITS: must be a JSON array/],
      [
        { RELAYFLOW_VERIFICATION_RATE_LIMITS: '[{"id":"x","key":"ip","country":"SE","max":1,"windowSeconds":1}]' },
        /\[0\]: give exactly one of key, country, prefix/,
      ],
      [{ RELAYFLOW_VERIFICATION_RATE_LIMITS: '[{"id":"x","key":"IP","max":1,"windowSeconds":1}]' }, /\[0\]\.key: must match/],
      [{ RELAYFLOW_VERIFICATION_RATE_LIMITS: '[{"id":"x","country":"UK2","max":1,"windowSeconds":1}]' }, /\[0\]\.country/],
      [{ RELAYFLOW_VERIFICATION_RATE_LIMITS: '[{"id":"x","prefix":"0","max":1,"windowSeconds":1}]' }, /\[0\]\.prefix/],
      [{ RELAYFLOW_VERIFICATION_RATE_LIMITS: '[{"id":"x","key":"ip","max":0,"windowSeconds":1}]' }, /\[0\]\.max/],
      [
        { RELAYFLOW_VERIFICATION_RATE_LIMITS: '[{"id":"x","key":"ip","max":1,"windowSeconds":1},{"id":"x","key":"user","max":1,"windowSeconds":1}]' },
        /\[1\]\.id: "x" is used twice/,
      ],
      [{ RELAYFLOW_VERIFICATION_RATE_LIMITS: '[{"id":"x","key":"ip","max":1,"window":1}]' }, /\[0\]\.window: not a field/],
      [{ RELAYFLOW_VERIFICATION_PUMPING_GUARD: 'yes' }, /^RELAYFLOW_VERIFICATION_PUMPING_GUARD: must be on or off/],
      [{ RELAYFLOW_VERIFICATION_PUMPING_FLOOR: '1.5' }, /^RELAYFLOW_VERIFICATION_PUMPING_FLOOR: must be a number from 0 to 1/],
      [{ RELAYFLOW_VERIFICATION_PUMPING_ACTION: 'email' }, /^RELAYFLOW_VERIFICATION_PUMPING_ACTION: must be block or a method/],
      [{ RELAYFLOW_VERIFICATION_PUMPING_PREFIX_DIGITS: '1' }, /^RELAYFLOW_VERIFICATION_PUMPING_PREFIX_DIGITS/],
    ];
    for (const [env, message] of bad) {
      assert.throws(
        () => verification(env),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
        JSON.stringify(env),
      );
    }
    assert.equal(verification({ RELAYFLOW_VERIFICATION_PUMPING_ACTION: 'flashcall', RELAYFLOW_VERIFICATION_PUMPING_FLOOR: '0.25' }).pumping.floor, 0.25);
  });
});
