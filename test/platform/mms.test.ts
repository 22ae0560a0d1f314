// The MMS client (platform/mms/client.ts): the wire body of each action against a local stub
// (docs/mms-wire.md "Fields"), and sendmms, savemms + sendsavedmms and the E-codes against the sandbox's
// MMS area, whose refusals relayflow's pre-check (mmsViolations) must agree with.
import { after, before, beforeEach, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PlatformHttp } from '../../platform/http.js';
import { PlatformAuthError, PlatformError, PlatformRateLimitError, PlatformValidationError } from '../../platform/errors.js';
import { MmsClient } from '../../platform/mms/client.js';
import { mmsViolations, toMmsNumber } from '../../platform/mms/rules.js';
import type { MmsMessage } from '../../platform/mms/types.js';
import { classifySendError } from '../../platform/send-errors.js';
import { createSandbox, type Sandbox } from '../../sandbox/index.js';
import { sandboxClients, sandboxControl } from '../helpers/sandbox-clients.js';
import { listenStub, sendJson } from '../helpers/stub-server.js';

describe('MMS client', () => {
  interface Seen {
    method: string;
    url: string;
    headers: IncomingMessage['headers'];
    body: Record<string, unknown>;
  }

  /** An MMS endpoint under /ep/v2/ that records each request and answers `answer(request)` (200 Success by default). */
  async function startStub(
    t: TestContext,
    answer: (r: Seen) => { status?: number; body: unknown } = () => ({ body: { status: 'Success', 'tracking-id': 'trk-1' } }),
  ) {
    const seen: Seen[] = [];
    const base = await listenStub(t, (req, res) => {
      const r: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: JSON.parse(req.text) as Record<string, unknown> };
      seen.push(r);
      const a = answer(r);
      sendJson(res, a.status ?? 200, a.body);
    });
    const client = new MmsClient({ http: new PlatformHttp({ timeoutMs: 2000 }), baseUrl: `${base}/ep/v2//`, apiKey: 'mms-key-1' });
    return { client, seen };
  }

  const MESSAGE: MmsMessage = {
    serviceId: 'svc-1',
    from: '12345',
    subject: 'Summer sale',
    slides: [
      { text: 'Hello', image: 'https://cdn.example.com/a.png' },
      { pdf: 'https://cdn.example.com/menu.pdf', audio: 'http://cdn.example.com/j.mp3' },
    ],
    fallbackSmsText: 'See the offer',
    disableFallbackSmsLink: true,
    fallbackSmsLinkExpiration: '2030-01-01T00:00:00Z',
  };

  test("sendmms: one JSON POST to the base address, key in x-api-key only, fields in the wire's names", async (t) => {
    const { client, seen } = await startStub(t);
    const r = await client.send({ to: toMmsNumber('+15551234567'), toDisplayOnly: '15550000001,15550000002', message: MESSAGE, clientReference: 'rf:c1:7' });
    assert.deepEqual(r, { trackingId: 'trk-1' });
    assert.equal(seen.length, 1);
    const req = seen[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/ep/v2/');
    assert.equal(req.headers['x-api-key'], 'mms-key-1');
    assert.equal(req.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(req.headers.authorization, undefined);
    assert.deepEqual(req.body, {
      action: 'sendmms',
      to: '15551234567',
      'to-displayonly': '15550000001,15550000002',
      'service-id': 'svc-1',
      from: '12345',
      'message-subject': 'Summer sale',
      // One {url} object per media kind of a slide: one file per MIME type.
      slide: [
        { 'message-text': 'Hello', image: { url: 'https://cdn.example.com/a.png' } },
        { pdf: { url: 'https://cdn.example.com/menu.pdf' }, audio: { url: 'http://cdn.example.com/j.mp3' } },
      ],
      'fallback-sms-text': 'See the offer',
      'disable-fallback-sms-link': true,
      'fallback-sms-link-expiration': '2030-01-01T00:00:00Z',
      'client-reference': 'rf:c1:7',
    });
    assert.ok(!JSON.stringify(req.body).includes('mms-key-1'), 'the key never goes into the body');
  });

  test('sendmms leaves out the optional fields it was not given', async (t) => {
    const { client, seen } = await startStub(t);
    await client.send({ to: '15551234567', message: { serviceId: 's', subject: 'x', slides: [{ text: 'hi' }], disableFallbackSms: true } });
    assert.deepEqual(seen[0]!.body, {
      action: 'sendmms',
      to: '15551234567',
      'service-id': 's',
      'message-subject': 'x',
      slide: [{ 'message-text': 'hi' }],
      'disable-fallback-sms': true,
    });
  });

  test('savemms has no `to` and answers the mms-id; sendsavedmms names the template instead of slides', async (t) => {
    const { client, seen } = await startStub(t, (r) => ({
      body: r.body.action === 'savemms' ? { status: 'Success', 'mms-id': 'mms-9' } : { status: 'Success', 'tracking-id': 'trk-2' },
    }));
    assert.deepEqual(await client.save(MESSAGE), { mmsId: 'mms-9' });
    assert.deepEqual(
      await client.sendSaved({ to: '15551234567', mmsId: 'mms-9', serviceId: 'svc-1', clientReference: 'rf:c1:8', toDisplayOnly: '15550000001' }),
      { trackingId: 'trk-2' },
    );
    const [save, sendSaved] = seen.map((s) => s.body);
    assert.equal(save!.action, 'savemms');
    assert.equal('to' in save!, false);
    assert.equal('client-reference' in save!, false);
    assert.equal(save!['message-subject'], 'Summer sale');
    assert.equal((save!.slide as unknown[]).length, 2);
    assert.deepEqual(sendSaved, {
      action: 'sendsavedmms',
      'service-id': 'svc-1',
      'mms-id': 'mms-9',
      to: '15551234567',
      'to-displayonly': '15550000001',
      'client-reference': 'rf:c1:8',
    });
  });

  test('a 200 answer whose status is not Success is an error typed by its E-code', async (t) => {
    const answers = [
      { status: 'Failure', 'error-code': 'E113', 'error-info': 'throughput exceeded' },
      { status: 'Failure', 'error-code': 'E110', 'error-info': 'bad to' },
      { status: 'Failure', 'error-code': 'E104', 'error-info': 'bad key' },
      {},
    ];
    let i = 0;
    const { client } = await startStub(t, () => ({ body: answers[i++] }));
    const send = () => client.send({ to: '15551234567', message: MESSAGE });
    await assert.rejects(
      send(),
      (err: unknown) => err instanceof PlatformRateLimitError && err.code === 'E113' && err.httpStatus === 200 && err.area === 'mms',
    );
    await assert.rejects(send(), (err: unknown) => err instanceof PlatformValidationError && err.code === 'E110' && /bad to/.test(err.message));
    await assert.rejects(send(), (err: unknown) => err instanceof PlatformAuthError && err.code === 'E104');
    await assert.rejects(send(), (err: unknown) => err instanceof PlatformError && err.code === 'HTTP_200');
  });

  // ---------------------------------------------------------------------------------------------
  // Against the sandbox
  // ---------------------------------------------------------------------------------------------

  let sb: Sandbox;
  let mms: MmsClient;
  let media: string;

  const control = sandboxControl(() => sb);

  const sandboxMessage = (over: Partial<MmsMessage> = {}): MmsMessage => ({
    serviceId: 'svc-1',
    subject: 'Hello',
    slides: [{ text: 'Hi there', image: `${media}/a.png` }],
    fallbackSmsText: 'Hi there',
    ...over,
  });

  before(async () => {
    sb = await createSandbox();
    await sb.listen();
    mms = sandboxClients(sb).mms;
    media = `${sb.url}/_sandbox/mms/media`;
  });

  after(async () => {
    await sb.close();
  });

  beforeEach(async () => {
    await control('POST', '/reset');
  });

  test('sandbox: sendmms is accepted, answers a tracking ID, and the platform has it under the client-reference', async () => {
    const to = toMmsNumber('+15551234567');
    const { trackingId } = await mms.send({ to, message: sandboxMessage(), clientReference: 'rf:camp-1:1' });
    assert.match(trackingId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    const { messages } = (await control('GET', '/mms/messages?clientReference=rf%3Acamp-1%3A1')) as { messages: Array<{ trackingId: string; to: string }> };
    assert.deepEqual(
      messages.map((m) => [m.trackingId, m.to]),
      [[trackingId, '15551234567']],
    );
    assert.deepEqual(((await control('GET', '/mms/recipients')) as { counts: Record<string, number> }).counts, { '15551234567': 1 });
  });

  test('sandbox: savemms then sendsavedmms per recipient, each with its own tracking ID', async () => {
    const { mmsId } = await mms.save(sandboxMessage({ slides: [{ video: `${media}/v.mp4` }, { text: 'second slide' }] }));
    assert.ok(mmsId.length > 0, 'savemms answers an mms-id');
    const sent = [];
    for (const [i, n] of ['+15551230001', '+15551230002'].entries()) {
      sent.push(await mms.sendSaved({ to: toMmsNumber(n), mmsId, serviceId: 'svc-1', clientReference: `rf:camp-2:${i}` }));
    }
    assert.equal(new Set(sent.map((s) => s.trackingId)).size, 2);
    for (const s of sent) assert.match(s.trackingId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    const stats = (await control('GET', '/mms/stats')) as { saved: number; accepted: number; duplicateRecipients: number };
    assert.deepEqual([stats.saved, stats.accepted, stats.duplicateRecipients], [1, 2, 0]);
    const { messages } = (await control('GET', '/mms/messages?clientReference=rf%3Acamp-2%3A1')) as { messages: Array<{ mmsId?: string; to: string }> };
    assert.deepEqual(
      messages.map((m) => [m.mmsId, m.to]),
      [[mmsId, '15551230002']],
    );

    // An mms-id the account never saved: E100 naming mms-id, a refusal of the whole campaign.
    const err = await mms.sendSaved({ to: '15551230003', mmsId: 'mms-unknown', serviceId: 'svc-1' }).catch((e: unknown) => e);
    assert.ok(err instanceof PlatformValidationError, `expected a PlatformValidationError, got ${String(err)}`);
    assert.equal(err.code, 'E100');
    assert.match(err.message, /mms-id/);
    assert.equal(classifySendError(err).kind, 'campaign_refused');
  });

  test("sandbox: E113 past the account's throughput is a PlatformRateLimitError with Retry-After (throttled)", async () => {
    await control('PUT', '/mms/account', { throughputPerSecond: 1 });
    await mms.send({ to: '15551234567', message: sandboxMessage() });
    const err = await mms.send({ to: '15551234568', message: sandboxMessage() }).catch((e: unknown) => e);
    assert.ok(err instanceof PlatformRateLimitError, `expected a PlatformRateLimitError, got ${String(err)}`);
    assert.equal(err.code, 'E113');
    assert.equal(err.httpStatus, 429);
    assert.equal(err.retryAfterMs, 1000);
    assert.equal(err.retryable, true);
    assert.deepEqual(classifySendError(err), { kind: 'throttled', code: 'E113', message: err.message, retryAfterMs: 1000 });
    const stats = (await control('GET', '/mms/stats')) as { accepted: number; refusedE113: number };
    assert.deepEqual([stats.accepted, stats.refusedE113], [1, 1]);
  });

  test('sandbox: E-code refusals surface as typed errors and classify as the batch must react', async () => {
    await control('PUT', '/mms/account', { blockedNumbers: ['15550000666'] });
    const cases: Array<[string, () => Promise<unknown>, new (...a: never[]) => PlatformError, string, string]> = [
      ['bad to', () => mms.send({ to: '0015551234567', message: sandboxMessage() }), PlatformValidationError, 'E110', 'recipient_rejected'],
      ['blocked number', () => mms.send({ to: '15550000666', message: sandboxMessage() }), PlatformValidationError, 'E114', 'recipient_rejected'],
      [
        'media without Content-Length',
        () => mms.send({ to: '15551234567', message: sandboxMessage({ slides: [{ image: `${sb.url}/_sandbox/mms/media-chunked/a.png` }] }) }),
        PlatformValidationError,
        'E227',
        'campaign_refused',
      ],
      [
        'media that is not there',
        () => mms.send({ to: '15551234567', message: sandboxMessage({ slides: [{ image: `${sb.url}/_sandbox/mms/nothing-here.png` }] }) }),
        PlatformValidationError,
        'E227',
        'campaign_refused',
      ],
      [
        'bad service-id',
        () => mms.send({ to: '15551234567', message: sandboxMessage({ serviceId: 'no spaces allowed' }) }),
        PlatformValidationError,
        'E111',
        'campaign_refused',
      ],
    ];
    for (const [what, call, cls, code, kind] of cases) {
      const err = await call().catch((e: unknown) => e);
      assert.ok(err instanceof cls, `${what}: ${String(err)}`);
      assert.equal(err.code, code, what);
      assert.equal(err.area, 'mms', what);
      assert.equal(classifySendError(err).kind, kind, what);
    }

    // A wrong API key: E104, a credentials problem for the whole campaign.
    const wrongKey = new MmsClient({ http: new PlatformHttp({ timeoutMs: 5000 }), baseUrl: sb.platformUrls().mms, apiKey: 'not-the-key' });
    const err = await wrongKey.send({ to: '15551234567', message: sandboxMessage() }).catch((e: unknown) => e);
    assert.ok(err instanceof PlatformAuthError, `expected a PlatformAuthError, got ${String(err)}`);
    assert.equal(err.code, 'E104');
    assert.equal(err.httpStatus, 401);
    assert.equal(classifySendError(err).kind, 'campaign_refused');
    assert.equal(((await control('GET', '/mms/stats')) as { accepted: number }).accepted, 0);
  });

  test("sandbox: what mmsViolations refuses, the platform refuses with the slide rule's E-code", async () => {
    const cases: Array<[string, MmsMessage, string, string]> = [
      ['no slides', sandboxMessage({ slides: [] }), 'body.slides', 'E223'],
      ['9 slides', sandboxMessage({ slides: Array.from({ length: 9 }, (_, i) => ({ text: `s${i}` })) }), 'body.slides', 'E223'],
      ['5,001 characters', sandboxMessage({ slides: [{ text: 'x'.repeat(5_001) }] }), 'body.slides[0].text', 'E224'],
      ['relative media URL', sandboxMessage({ slides: [{ image: '/_sandbox/mms/media/a.png' }] }), 'body.slides[0].image', 'E226'],
      ['ftp media URL', sandboxMessage({ slides: [{ text: 'x', pdf: 'ftp://files.example.com/a.pdf' }] }), 'body.slides[0].pdf', 'E226'],
    ];
    for (const [what, message, field, code] of cases) {
      assert.deepEqual(
        mmsViolations(message, Date.now()).map((v) => v.field),
        [field],
        what,
      );
      const err = await mms.send({ to: '15551234567', message }).catch((e: unknown) => e);
      assert.ok(err instanceof PlatformValidationError, `${what}: ${String(err)}`);
      assert.equal(err.code, code, what);
      assert.equal(classifySendError(err).kind, 'campaign_refused', what);
    }
    // The valid message passes both.
    const ok = sandboxMessage({ slides: [{ text: 'x'.repeat(5_000), image: `${media}/a.png` }, ...Array.from({ length: 7 }, () => ({ text: 'more' }))] });
    assert.deepEqual(mmsViolations(ok, Date.now()), []);
    const { trackingId } = await mms.send({ to: '15551234567', message: ok });
    assert.match(trackingId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});
