// mmsViolations (platform/mms/rules.ts): the spec's MMS rules (part C, Fields and Limits; docs/mms-wire.md)
// checked before a campaign starts, each broken rule reported with the field it is about. Also the number
// format of `to` (toMmsNumber, isMmsNumber). Pure functions: `now` is fixed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMmsNumber, mmsViolations, toMmsNumber, type MmsViolation } from '../../platform/mms/rules.js';
import { MMS_MEDIA_KINDS } from '../../common/wire/mms.js';
import type { MmsMessage, MmsSlide } from '../../platform/mms/types.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const DAY = 86_400_000;

const message = (over: Partial<MmsMessage> = {}): MmsMessage => ({
  serviceId: 'svc-1',
  subject: 'Summer sale',
  slides: [{ text: 'Hello', image: 'https://cdn.example.com/a.png' }],
  fallbackSmsText: 'See the offer',
  ...over,
});

const slides = (n: number): MmsSlide[] => Array.from({ length: n }, (_, i) => ({ text: `slide ${i + 1}` }));
const fieldRule = (v: MmsViolation[]) => v.map((x) => [x.field, x.rule]);

test('a valid message has no violations (1 and 8 slides, 5,000 characters, every media kind, http and https)', () => {
  assert.deepEqual(mmsViolations(message(), NOW), []);
  assert.deepEqual(mmsViolations(message({ slides: slides(1) }), NOW), []);
  assert.deepEqual(mmsViolations(message({ slides: slides(8) }), NOW), []);
  assert.deepEqual(mmsViolations(message({ slides: [{ text: 'x'.repeat(5_000) }] }), NOW), []);
  // One file of each kind (each its own MIME type) in one slide is allowed.
  const everyKind = Object.fromEntries(MMS_MEDIA_KINDS.map((k, i) => [k, `${i % 2 ? 'http' : 'https'}://cdn.example.com/${k}`])) as MmsSlide;
  assert.deepEqual(mmsViolations(message({ slides: [everyKind] }), NOW), []);
  // Media alone, without text, is a valid slide.
  assert.deepEqual(mmsViolations(message({ slides: [{ video: 'https://cdn.example.com/v.mp4' }] }), NOW), []);
  assert.deepEqual(mmsViolations(message({ fallbackSmsText: undefined, disableFallbackSms: true }), NOW), []);
  assert.deepEqual(mmsViolations(message({ fallbackSmsLinkExpiration: new Date(NOW + 30 * DAY).toISOString() }), NOW), []);
});

test('0 slides and 9 slides: one `count` violation on body.slides', () => {
  for (const n of [0, 9, 20]) {
    const v = mmsViolations(message({ slides: slides(n) }), NOW);
    assert.deepEqual(v, [{ field: 'body.slides', rule: 'count', message: 'an MMS has 1 to 8 slides' }], `${n} slides`);
  }
});

test("5,001 characters of text in a slide: `maxLength` on that slide's text", () => {
  const v = mmsViolations(message({ slides: [{ text: 'ok' }, { text: 'x'.repeat(5_001) }] }), NOW);
  assert.equal(v.length, 1);
  assert.equal(v[0]!.field, 'body.slides[1].text');
  assert.equal(v[0]!.rule, 'maxLength');
  assert.match(v[0]!.message, /5,000 characters/);
});

test("a relative or non-http(s) media URL: `url` on the slide's media field, named by its kind", () => {
  const bad: Array<[MmsSlide, string]> = [
    [{ image: '/media/a.png' }, 'body.slides[0].image'],
    [{ image: 'a.png' }, 'body.slides[0].image'],
    [{ pdf: 'ftp://files.example.com/menu.pdf' }, 'body.slides[0].pdf'],
    [{ audio: 'file:///etc/passwd' }, 'body.slides[0].audio'],
    [{ text: 'hi', calendar: '//cdn.example.com/cal.ics' }, 'body.slides[0].calendar'],
  ];
  for (const [slide, field] of bad) {
    const v = mmsViolations(message({ slides: [slide] }), NOW);
    assert.deepEqual(v, [{ field, rule: 'url', message: 'a media URL must be absolute, http or https' }], JSON.stringify(slide));
  }
  // Only the bad one of several media of a slide is named.
  const v = mmsViolations(message({ slides: [{ text: 'hi' }, { image: 'https://cdn.example.com/a.png', video: 'ftp://x/v.mp4' }] }), NOW);
  assert.deepEqual(fieldRule(v), [['body.slides[1].video', 'url']]);
});

test('a slide with neither text nor media: `required` on the slide', () => {
  for (const slide of [{}, { text: '' }] as MmsSlide[]) {
    const v = mmsViolations(message({ slides: [{ text: 'first' }, slide] }), NOW);
    assert.deepEqual(fieldRule(v), [['body.slides[1]', 'required']]);
    assert.match(v[0]!.message, /text or a media URL/);
  }
});

test('fallbackSmsText is required unless disableFallbackSms is true', () => {
  for (const over of [{ fallbackSmsText: undefined }, { fallbackSmsText: '' }, { fallbackSmsText: undefined, disableFallbackSms: false }]) {
    const v = mmsViolations(message(over), NOW);
    assert.deepEqual(fieldRule(v), [['body.fallbackSmsText', 'required']], JSON.stringify(over));
    assert.match(v[0]!.message, /disableFallbackSms/);
  }
});

test('fallbackSmsLinkExpiration: a date-time, in the future, at most one year ahead', () => {
  const at = (ms: number) => new Date(ms).toISOString();
  const cases: Array<[string, string | undefined]> = [
    ['next tuesday', 'format'],
    ['', 'format'],
    [at(NOW), 'future'],
    [at(NOW - DAY), 'future'],
    [at(NOW + 400 * DAY), 'max'],
    [at(NOW + DAY), undefined],
    [at(NOW + 365 * DAY), undefined],
  ];
  for (const [value, rule] of cases) {
    const v = mmsViolations(message({ fallbackSmsLinkExpiration: value }), NOW);
    assert.deepEqual(fieldRule(v), rule ? [['body.fallbackSmsLinkExpiration', rule]] : [], `${JSON.stringify(value)} -> ${rule ?? 'valid'}`);
  }
});

test('every broken rule is reported, in order, under the given prefix', () => {
  const m = message({
    slides: [{ text: 'x'.repeat(5_001), image: 'relative.png' }, {}],
    fallbackSmsText: undefined,
    fallbackSmsLinkExpiration: 'soon',
  });
  const v = mmsViolations(m, NOW, 'mms');
  assert.deepEqual(fieldRule(v), [
    ['mms.slides[0].text', 'maxLength'],
    ['mms.slides[0].image', 'url'],
    ['mms.slides[1]', 'required'],
    ['mms.fallbackSmsText', 'required'],
    ['mms.fallbackSmsLinkExpiration', 'format'],
  ]);
  // The slide-count rule does not hide the others.
  assert.deepEqual(fieldRule(mmsViolations(message({ slides: [...slides(8), { image: 'x' }] }), NOW)), [
    ['body.slides', 'count'],
    ['body.slides[8].image', 'url'],
  ]);
});

test('toMmsNumber: E.164 to the MMS `to` format (digits with country code, no plus)', () => {
  const cases: Array<[string, string]> = [
    ['+15551234567', '15551234567'],
    ['+447700900123', '447700900123'],
    ['+5511987654321', '5511987654321'],
    ['+33612345678', '33612345678'],
    ['15551234567', '15551234567'],
  ];
  for (const [e164, expected] of cases) {
    const n = toMmsNumber(e164);
    assert.equal(n, expected, e164);
    assert.ok(isMmsNumber(n), `${n} is an MMS number`);
    assert.doesNotMatch(n, /^\+|^00/);
  }
});

test('isMmsNumber: refuses a plus, a 00 / 001 prefix, separators, and lengths outside 7..15 digits', () => {
  for (const ok of ['15551234567', '447700900123', '1234567', '123456789012345']) assert.equal(isMmsNumber(ok), true, ok);
  for (const bad of [
    '+15551234567',
    '0015551234567',
    '00447700900123',
    '0447700900123',
    '123456',
    '1234567890123456',
    '1 555 123 4567',
    '1-555-123-4567',
    '',
    '1555abc4567',
  ]) {
    assert.equal(isMmsNumber(bad), false, bad);
  }
});
