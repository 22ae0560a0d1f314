// MMS sandbox area, the request itself (docs/mms-wire.md "Base, auth, answers" and "Fields"): sendmms,
// savemms and sendsavedmms accepted at the rules' upper bounds; authentication, framing, field and slide
// rules each refused with the documented HTTP status and E-code, and a refusal changes no count.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { API_KEY, assertRefused, assertSuccess, mmsSuite, saveBody, sendBody, sendSavedBody, type MmsStats } from '../../helpers/sandbox-mms.js';

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const NOTHING_DONE: Partial<MmsStats> = { accepted: 0, saved: 0, distinctRecipients: 0, refusedE113: 0 };

describe('MMS sandbox: sendmms, savemms, sendsavedmms and their refusals', () => {
  const { send, stats, recipients, messages, media } = mmsSuite();

  /** Accepted, refused and saved counts after refusals only: nothing was accepted or saved. */
  async function assertNothingDone(requests: number): Promise<void> {
    const s = await stats();
    assert.deepEqual({ accepted: s.accepted, saved: s.saved, distinctRecipients: s.distinctRecipients, refusedE113: s.refusedE113 }, NOTHING_DONE);
    assert.equal(s.requests, requests, 'every call is counted as a request');
    assert.deepEqual(await recipients(), {});
  }

  test('sendmms: Success with a ULID tracking-id, counted per recipient and listed by client-reference; /mms without the slash too', async () => {
    const res = await send(sendBody('15551230001', { 'client-reference': 'rf:camp-1:1' }));
    const trackingId = assertSuccess(res, 'sendmms');
    assert.match(trackingId, ULID);
    assert.equal(res.body['mms-id'], undefined);
    const listed = await messages('rf:camp-1:1');
    assert.equal(listed.length, 1);
    assert.deepEqual(
      { ...listed[0], at: undefined },
      { trackingId, to: '15551230001', clientReference: 'rf:camp-1:1', fallbackDisabled: false, at: undefined },
    );
    assert.ok(!Number.isNaN(Date.parse(listed[0]!.at)));

    const again = await send(sendBody('15551230001'), { url: '/mms' });
    assert.notEqual(assertSuccess(again, 'POST /mms'), trackingId, 'each send has its own tracking-id');
    assert.deepEqual(await recipients(), { '15551230001': 2 });
    assert.deepEqual(await messages('nope'), []);
    const s = await stats();
    assert.deepEqual([s.accepted, s.requests, s.saved, s.distinctRecipients, s.duplicateRecipients, s.duplicateSamples], [2, 2, 0, 1, 1, ['15551230001']]);
  });

  test('upper bounds are accepted: 8 slides, 5,000 characters, one file of each of the 7 media kinds, 64-character reference, expiry within a year', async () => {
    const png = media('media/a.png');
    const everyKind = {
      image: { url: png },
      audio: { url: png },
      video: { url: png },
      contact: { url: png },
      calendar: { url: png },
      pdf: { url: png },
      spreadsheet: { url: png },
    };
    const slides = [{ 'message-text': 'x'.repeat(5_000), ...everyKind }, ...Array.from({ length: 7 }, (_, i) => ({ 'message-text': `slide ${i + 2}` }))];
    const res = await send(
      sendBody('447700900123', {
        slide: slides,
        'message-subject': 's'.repeat(80),
        'client-reference': 'r'.repeat(64),
        'to-displayonly': '15551230002, 15551230003',
        'fallback-sms-link-expiration': new Date(Date.now() + 300 * 86_400_000).toISOString(),
        'disable-fallback-sms-link': true,
      }),
    );
    assertSuccess(res, 'bounds');
    assert.deepEqual(await recipients(), { '447700900123': 1 }, 'to-displayonly numbers are never sent to');
  });

  test('savemms answers an mms-id (no tracking-id, nothing sent); sendsavedmms sends it with the saved fallback setting', async () => {
    const saved = await send(saveBody({ 'disable-fallback-sms': true, 'fallback-sms-text': undefined }));
    const mmsId = assertSuccess(saved, 'savemms');
    assert.equal(saved.body['tracking-id'], undefined);
    assert.deepEqual([(await stats()).saved, (await stats()).accepted], [1, 0]);
    assert.deepEqual(await recipients(), {});

    const sent = await send(sendSavedBody(mmsId, '15551230009', { 'client-reference': 'rf:saved:1' }));
    const trackingId = assertSuccess(sent, 'sendsavedmms');
    assert.match(trackingId, ULID);
    const [msg] = await messages('rf:saved:1');
    assert.deepEqual([msg?.trackingId, msg?.mmsId, msg?.fallbackDisabled, msg?.to], [trackingId, mmsId, true, '15551230009']);
    assert.deepEqual([(await stats()).saved, (await stats()).accepted], [1, 1]);

    // An unknown mms-id and a missing one are E100; the send is not accepted.
    const unknown = await send(sendSavedBody('mms-does-not-exist'));
    assertRefused(unknown, 400, 'E100', 'unknown mms-id');
    assert.match(unknown.body['error-info']!, /mms-id/);
    const { 'mms-id': _id, ...noId } = sendSavedBody(mmsId);
    assertRefused(await send(noId), 400, 'E100', 'no mms-id');
    assertRefused(await send(sendSavedBody(mmsId, '+15551230009')), 400, 'E110', 'sendsavedmms checks to');
    assert.equal((await stats()).accepted, 1);
  });

  test('authentication: no key, a wrong key, a key in the query string or in the body are 401 E104', async () => {
    const cases: [string, Parameters<typeof send>][] = [
      ['no x-api-key', [sendBody(), { headers: { 'x-api-key': '' } }]],
      ['wrong key', [sendBody(), { headers: { 'x-api-key': `${API_KEY}x` } }]],
      ['api-key in the query, right header', [sendBody(), { url: `/mms/?api-key=${API_KEY}` }]],
      ['apikey in the query', [sendBody(), { url: `/mms/?apikey=${API_KEY}`, headers: { 'x-api-key': '' } }]],
      ['api-key in the body, right header', [sendBody('15551230001', { 'api-key': API_KEY })]],
    ];
    for (const [what, args] of cases) assertRefused(await send(...args), 401, 'E104', what);
    await assertNothingDone(cases.length);
  });

  test('framing: a body that is not JSON or not an object, or not sent as application/json, is 400 E108; an unknown action is E107', async () => {
    assertRefused(await send('{"action": "sendmms",'), 400, 'E108', 'invalid JSON');
    assertRefused(await send('[1, 2]'), 400, 'E108', 'an array');
    assertRefused(await send('"sendmms"'), 400, 'E108', 'a string');
    assertRefused(await send(JSON.stringify(sendBody()), { headers: { 'content-type': 'text/plain' } }), 400, 'E108', 'text/plain');
    assertRefused(await send(sendBody('15551230001', { action: 'sendsms' })), 400, 'E107', 'unknown action');
    assertRefused(await send(sendBody('15551230001', { action: undefined })), 400, 'E107', 'no action');
    assertRefused(await send(sendBody('15551230001', { action: 'SENDMMS' })), 400, 'E107', 'action is case-sensitive');
    await assertNothingDone(7);
  });

  test('fields: service-id (E111), to (E110), to-displayonly, subject, fallback text and link expiry, client-reference (E100)', async () => {
    const day = 86_400_000;
    const cases: [string, Record<string, unknown>, string][] = [
      ['no service-id', sendBody('15551230001', { 'service-id': undefined }), 'E111'],
      ['service-id with a space', sendBody('15551230001', { 'service-id': 'svc 1' }), 'E111'],
      ['savemms without service-id', saveBody({ 'service-id': undefined }), 'E111'],
      ['no to', sendBody('15551230001', { to: undefined }), 'E110'],
      ['to with +', sendBody('+15551230001'), 'E110'],
      ['to with 00', sendBody('0015551230001'), 'E110'],
      ['to with 001', sendBody('00115551230001'), 'E110'],
      ['to with a leading 0', sendBody('05551230001'), 'E110'],
      ['to with a dash', sendBody('1555-123-0001'), 'E110'],
      ['to too short', sendBody('155512'), 'E110'],
      ['to too long', sendBody('1555123000112345'), 'E110'],
      ['to as a number', sendBody('15551230001', { to: 15551230001 }), 'E110'],
      ['to-displayonly with +', sendBody('15551230001', { 'to-displayonly': '15551230002,+15551230003' }), 'E100'],
      ['to-displayonly empty', sendBody('15551230001', { 'to-displayonly': '' }), 'E100'],
      ['no subject', sendBody('15551230001', { 'message-subject': undefined }), 'E100'],
      ['subject of 81 characters', sendBody('15551230001', { 'message-subject': 's'.repeat(81) }), 'E100'],
      ['no fallback text with fallback on', sendBody('15551230001', { 'fallback-sms-text': undefined }), 'E100'],
      ['empty fallback text', sendBody('15551230001', { 'fallback-sms-text': '' }), 'E100'],
      ['fallback off only when exactly true', sendBody('15551230001', { 'fallback-sms-text': undefined, 'disable-fallback-sms': 'true' }), 'E100'],
      ['link expiry in the past', sendBody('15551230001', { 'fallback-sms-link-expiration': new Date(Date.now() - day).toISOString() }), 'E100'],
      ['link expiry beyond a year', sendBody('15551230001', { 'fallback-sms-link-expiration': new Date(Date.now() + 367 * day).toISOString() }), 'E100'],
      ['link expiry not a date', sendBody('15551230001', { 'fallback-sms-link-expiration': 'next week' }), 'E100'],
      ['client-reference of 65 characters', sendBody('15551230001', { 'client-reference': 'r'.repeat(65) }), 'E100'],
      ['client-reference not text', sendBody('15551230001', { 'client-reference': 7 }), 'E100'],
    ];
    for (const [what, body, code] of cases) assertRefused(await send(body), 400, code, what);
    await assertNothingDone(cases.length);
  });

  test('slides: 1 to 8 (E223), 5,000 characters (E224), one file per MIME type (E225), absolute http(s) media URLs (E226), text or media (E100)', async () => {
    const png = media('media/a.png');
    const slides = (slide: unknown) => sendBody('15551230001', { slide });
    const cases: [string, Record<string, unknown>, string][] = [
      ['no slide', sendBody('15551230001', { slide: undefined }), 'E223'],
      ['no slides', slides([]), 'E223'],
      ['nine slides', slides(Array.from({ length: 9 }, () => ({ 'message-text': 'x' }))), 'E223'],
      ['slide not a list', slides({ 'message-text': 'x' }), 'E223'],
      ['savemms with nine slides', saveBody({ slide: Array.from({ length: 9 }, () => ({ 'message-text': 'x' })) }), 'E223'],
      ['5,001 characters', slides([{ 'message-text': 'x'.repeat(5_001) }]), 'E224'],
      ['5,001 characters on the last slide', slides([{ 'message-text': 'x' }, { 'message-text': 'x'.repeat(5_001) }]), 'E224'],
      ['two images', slides([{ image: [{ url: png }, { url: png }] }]), 'E225'],
      ['relative media URL', slides([{ image: { url: '/_sandbox/mms/media/a.png' } }]), 'E226'],
      ['ftp media URL', slides([{ video: { url: 'ftp://cdn.example.com/v.mp4' } }]), 'E226'],
      ['media as a bare string', slides([{ audio: png }]), 'E226'],
      ['media without url', slides([{ image: {} }]), 'E226'],
      ['an empty slide', slides([{}]), 'E100'],
      ['empty text only', slides([{ 'message-text': '' }]), 'E100'],
      ['a slide that is text', slides(['Hello']), 'E100'],
      ['message-text not text', slides([{ 'message-text': 5 }]), 'E100'],
    ];
    for (const [what, body, code] of cases) assertRefused(await send(body), 400, code, what);
    await assertNothingDone(cases.length);
  });
});
