// Verification callbacks of the sandbox against a tiny local receiver: the VerificationRequestEvent
// (allow, deny, no answer), VerificationResultEvent, SmsDeliveredEvent, signatures and retries.
import { test, describe, after, before, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { signApplicationRequest, verifyApplicationRequest } from '../../../common/signing.js';
import { createSandbox, defaultSandboxAccount, type Sandbox } from '../../../sandbox/index.js';
import { pollUntil } from '../../helpers/deadline.js';
import { Receiver, type Received } from '../../helpers/stub-server.js';

const account = defaultSandboxAccount();
const BASE = '/verification/verification/v1/verifications';
const CONTENT_TYPE = 'application/json; charset=UTF-8';
const NUMBER = '+46700000001';
const HOOK_PATH = '/hooks/verification';

type Event = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Callback {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Event;
}
type Reply = { status: number; body: string } | 'hang';

/** Records every callback; `answer` decides the reply per event (default: 200, allow). */
class CallbackReceiver extends Receiver<Callback> {
  answer: (event: Event) => Reply = () => ({ status: 200, body: JSON.stringify({ action: 'allow' }) });

  protected override record(r: Received): Callback {
    return { path: r.path, headers: r.headers, raw: r.raw, body: JSON.parse(r.raw) as Event };
  }

  protected override reply(res: ServerResponse, kept: Callback): void {
    const reply = this.answer(kept.body);
    if (reply !== 'hang') res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
  }

  events(name: string): Event[] {
    return this.received.filter((r) => r.body.event === name).map((r) => r.body);
  }
}

const waitFor = (cond: () => boolean, ms = 5000) => pollUntil(cond, 'the callbacks', ms, 5);

async function call(sb: Sandbox, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const signed = signApplicationRequest({ appKey: account.appKey, appSecret: account.appSecret, method, path: url, contentType: CONTENT_TYPE, body: payload });
  const res = await sb.app.inject({ method: method as 'GET', url, headers: { ...signed, ...headers }, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, headers: res.headers, body: res.json() as Event };
}

const start = (sb: Sandbox, body: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  call(sb, 'POST', BASE, { identity: { type: 'number', endpoint: NUMBER }, method: 'sms', ...body }, headers);

async function lastCode(sb: Sandbox): Promise<string> {
  const res = await sb.app.inject({ method: 'GET', url: `/_sandbox/verification/phones/${encodeURIComponent(NUMBER)}` });
  const messages = (res.json() as { messages: { code: string }[] }).messages;
  return messages[messages.length - 1]!.code;
}

describe('verification callbacks', () => {
  const receiver = new CallbackReceiver();
  let sb: Sandbox;
  before(async () => {
    await receiver.start();
    sb = await createSandbox({ verificationRequestEventTimeoutMs: 300, verificationSmsDeliveryDelayMs: 10 });
  });
  beforeEach(async () => {
    await sb.app.inject({ method: 'POST', url: '/_sandbox/reset' });
    const put = await sb.app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { callbackUrl: `${receiver.url}${HOOK_PATH}?tenant=1` } });
    assert.equal(put.statusCode, 200, put.body);
    receiver.received = [];
    receiver.answer = () => ({ status: 200, body: JSON.stringify({ action: 'allow' }) });
  });
  after(async () => {
    await sb.close();
    await receiver.stop();
  });

  test('VerificationRequestEvent: signed by the application, carries the request; allow starts the verification', async () => {
    const r = await start(sb, { reference: 'ref-a', custom: 'c-a' }, { 'accept-language': 'es-ES' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [request] = receiver.received;
    assert.equal(request!.path, `${HOOK_PATH}?tenant=1`);
    assert.equal(request!.headers['content-type'], CONTENT_TYPE);
    assert.match(String(request!.headers.authorization), new RegExp(`^Application ${account.appKey}:`));
    const verified = verifyApplicationRequest({
      headers: request!.headers,
      method: 'POST',
      path: HOOK_PATH,
      rawBody: request!.raw,
      secretForKey: (k) => (k === account.appKey ? account.appSecret : undefined),
    });
    assert.deepEqual(verified, { ok: true, appKey: account.appKey });
    assert.deepEqual(request!.body, {
      event: 'VerificationRequestEvent',
      id: r.body.id,
      method: 'sms',
      identity: { type: 'number', endpoint: NUMBER },
      reference: 'ref-a',
      custom: 'c-a',
      price: { amount: 0.0045, currencyId: 'EUR' },
      rate: { amount: 0.0045, currencyId: 'EUR' },
      acceptLanguage: ['es-ES'],
    });
    assert.equal((await call(sb, 'GET', `${BASE}/id/${r.body.id}`)).body.status, 'PENDING');
  });

  test('the answer may set the SMS code', async () => {
    receiver.answer = () => ({ status: 200, body: JSON.stringify({ action: 'allow', sms: { code: '424242' } }) });
    await start(sb);
    assert.equal(await lastCode(sb), '424242');
  });

  const refusals: [string, Reply, string][] = [
    ['deny', { status: 200, body: JSON.stringify({ action: 'deny' }) }, 'Denied by callback'],
    ['a 500 answer', { status: 500, body: JSON.stringify({ action: 'allow' }) }, 'Invalid callback'],
    ['an answer that is not JSON', { status: 200, body: 'allow' }, 'Invalid callback'],
    ['no answer in time', 'hang', 'Invalid callback'],
  ];
  for (const [name, reply, reason] of refusals) {
    test(`VerificationRequestEvent refused by ${name}: 403 40300 "${reason}", recorded DENIED, nothing sent`, async () => {
      receiver.answer = (e) => (e.event === 'VerificationRequestEvent' ? reply : { status: 200, body: '{}' });
      const r = await start(sb, { reference: `denied-${name}` });
      assert.equal(r.status, 403, JSON.stringify(r.body));
      assert.equal(r.body.errorCode, 40300);
      assert.equal(r.body.message, reason);
      const s = await call(sb, 'GET', `${BASE}/reference/${encodeURIComponent(`denied-${name}`)}`);
      assert.equal(s.body.status, 'DENIED');
      assert.equal(s.body.reason, reason);
      const phone = await sb.app.inject({ method: 'GET', url: `/_sandbox/verification/phones/${encodeURIComponent(NUMBER)}` });
      assert.deepEqual(phone.json(), { messages: [] });
      await waitFor(() => receiver.events('VerificationResultEvent').length === 1);
      assert.equal(receiver.events('VerificationResultEvent')[0]!.status, 'DENIED');
      assert.equal(receiver.events('VerificationSmsDeliveredEvent').length, 0);
    });
  }

  test('VerificationResultEvent on success, signed, with status and source', async () => {
    const id = (await start(sb, { reference: 'ref-ok', custom: 'x' })).body.id as string;
    await call(sb, 'PUT', `${BASE}/id/${id}`, { method: 'sms', sms: { code: await lastCode(sb) } });
    await waitFor(() => receiver.events('VerificationResultEvent').length === 1);
    const received = receiver.received.find((r) => r.body.event === 'VerificationResultEvent')!;
    assert.deepEqual(received.body, {
      event: 'VerificationResultEvent',
      id,
      method: 'sms',
      identity: { type: 'number', endpoint: NUMBER },
      reference: 'ref-ok',
      custom: 'x',
      status: 'SUCCESSFUL',
      source: 'manual',
    });
    const ok = verifyApplicationRequest({
      headers: received.headers,
      method: 'POST',
      path: HOOK_PATH,
      rawBody: received.raw,
      secretForKey: () => account.appSecret,
    });
    assert.equal(ok.ok, true);
  });

  test('a replaced verification is ABORTED with a result callback', async () => {
    const first = (await start(sb)).body.id as string;
    await start(sb, { method: 'flashcall' });
    await waitFor(() => receiver.events('VerificationResultEvent').length === 1);
    const [event] = receiver.events('VerificationResultEvent');
    assert.equal(event!.id, first);
    assert.equal(event!.status, 'ABORTED');
    assert.equal(event!.reason, 'Replaced by a newer verification');
  });

  test("the SMS receipt: the platform's VerificationSmsDeliveredEvent by default, echoing custom; Failed for an undeliverable number", async () => {
    const id = (await start(sb, { reference: 'r1', custom: 'rf-token' })).body.id as string;
    await waitFor(() => receiver.events('VerificationSmsDeliveredEvent').length === 1);
    assert.deepEqual(receiver.events('VerificationSmsDeliveredEvent')[0], {
      event: 'VerificationSmsDeliveredEvent',
      id,
      method: 'sms',
      identity: { type: 'number', endpoint: NUMBER },
      reference: 'r1',
      custom: 'rf-token',
      smsResult: 'Successful',
    });

    await sb.app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { undeliverableNumbers: ['+46700000007'] } });
    const lost = (await call(sb, 'POST', BASE, { identity: { type: 'number', endpoint: '+46700000007' }, method: 'sms' })).body.id as string;
    await waitFor(() => receiver.events('VerificationSmsDeliveredEvent').length === 2);
    const failed = receiver.events('VerificationSmsDeliveredEvent')[1]!;
    assert.equal(failed.id, lost);
    assert.equal(failed.smsResult, 'Failed');
    const phone = await sb.app.inject({ method: 'GET', url: `/_sandbox/verification/phones/${encodeURIComponent('+46700000007')}` });
    assert.deepEqual(phone.json(), { messages: [] });
  });

  test("the SMS receipt under the spec's name SmsDeliveredEvent when configured so", async () => {
    const put = await sb.app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { smsDeliveredEventName: 'SmsDeliveredEvent' } });
    assert.equal(put.statusCode, 200);
    const bad = await sb.app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { smsDeliveredEventName: 'SmsEvent' } });
    assert.equal(bad.statusCode, 400);
    const id = (await start(sb)).body.id as string;
    await waitFor(() => receiver.events('SmsDeliveredEvent').length === 1);
    assert.equal(receiver.events('SmsDeliveredEvent')[0]!.id, id);
    assert.equal(receiver.events('VerificationSmsDeliveredEvent').length, 0);
  });

  test('an unreachable number: ERROR with a result callback', async () => {
    await sb.app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { unreachableNumbers: [NUMBER] } });
    const id = (await start(sb, { method: 'callout' })).body.id as string;
    await waitFor(() => receiver.events('VerificationResultEvent').length === 1);
    assert.deepEqual(
      { id: receiver.events('VerificationResultEvent')[0]!.id, status: receiver.events('VerificationResultEvent')[0]!.status },
      { id, status: 'ERROR' },
    );
  });

  test('result callbacks are retried after a 500, and listed in /_sandbox/callbacks', async () => {
    let failures = 1;
    receiver.answer = (e) => {
      if (e.event === 'VerificationResultEvent' && failures-- > 0) return { status: 500, body: '{}' };
      return { status: 200, body: JSON.stringify({ action: 'allow' }) };
    };
    const id = (await start(sb, { method: 'callout' })).body.id as string;
    const answered = await sb.app.inject({ method: 'POST', url: `/_sandbox/verification/${id}/callout-answered`, payload: { code: await lastCode(sb) } });
    assert.equal((answered.json() as Event).status, 'SUCCESSFUL');
    await waitFor(() => receiver.events('VerificationResultEvent').length === 2);
    assert.deepEqual(
      receiver.events('VerificationResultEvent').map((e) => e.source),
      ['intercepted', 'intercepted'],
    );
    // The receiver sees the request before the dispatcher has read its answer.
    const isResult = (body: unknown) => (body as Event).event === 'VerificationResultEvent';
    await waitFor(() => sb.context.callbacks.list().some((c) => isResult(c.body) && c.outcome !== 'pending'));

    const res = await sb.app.inject({ method: 'GET', url: '/_sandbox/callbacks?area=verification' });
    const callbacks = (res.json() as { callbacks: { body: Event; outcome: string; attempts: { status?: number }[] }[] }).callbacks;
    const result = callbacks.find((c) => c.body.event === 'VerificationResultEvent')!;
    assert.equal(result.outcome, 'delivered');
    assert.deepEqual(
      result.attempts.map((a) => a.status),
      [500, 200],
    );
    assert.ok(callbacks.some((c) => c.body.event === 'VerificationRequestEvent'));
  });

  test('without a callback URL no callbacks are sent and starts are not asked about', async () => {
    await sb.app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { callbackUrl: null } });
    receiver.answer = () => ({ status: 200, body: JSON.stringify({ action: 'deny' }) });
    const id = (await start(sb)).body.id as string;
    await call(sb, 'PUT', `${BASE}/id/${id}`, { method: 'sms', sms: { code: await lastCode(sb) } });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(receiver.received.length, 0);
  });
});
