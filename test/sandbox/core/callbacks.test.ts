// The sandbox's callback dispatcher against a tiny local HTTP server.
import { test, describe, after, before, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { verifyApplicationRequest, verifyConversationWebhook, verifyHmacSha1Hex } from '../../../common/signing.js';
import { CallbackDispatcher } from '../../../sandbox/core/callbacks.js';
import { applicationCallbackSigner, conversationWebhookSigner, senderIdCallbackSigner } from '../../../sandbox/core/callback-signers.js';
import { SandboxCallbacks } from '../../../sandbox/core/callback-hub.js';
import { createSandbox, defaultSandboxAccount } from '../../../sandbox/index.js';
import { pollUntil } from '../../helpers/deadline.js';
import { Receiver, type Received } from '../../helpers/stub-server.js';

interface Taken {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers with the scripted statuses in turn (then 200), a JSON body naming the status; `hang` never answers. */
class DispatchReceiver extends Receiver<Taken> {
  protected override record(r: Received): Taken {
    return { method: r.method, path: r.path, headers: r.headers, body: r.raw };
  }

  protected override reply(res: ServerResponse): void {
    const next = this.script.shift() ?? 200;
    if (next === 'hang') return;
    res.writeHead(next, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: next }));
  }

  /** Forgets at once (no callback is on its way between these tests). */
  override async reset(): Promise<void> {
    this.received = [];
    this.script = [];
  }
}

const account = defaultSandboxAccount();

/** Polls until `cond` holds; fails the test instead of hanging when it never does. */
const waitFor = (cond: () => boolean, ms = 5000) => pollUntil(cond, 'the callbacks', ms, 5);

describe('callback dispatcher', () => {
  const receiver = new DispatchReceiver();
  let dispatcher: SandboxCallbacks;
  before(() => receiver.start());
  after(() => receiver.stop());
  beforeEach(async () => {
    await receiver.reset();
    dispatcher?.close();
    dispatcher = new SandboxCallbacks(new CallbackDispatcher());
  });

  test('delivers a JSON POST; 2xx counts as delivered and the answer is returned', async () => {
    const result = await dispatcher.dispatch({ area: 'verification', url: `${receiver.url}/hooks/v?x=1`, body: { event: 'A' } });
    assert.equal(result.outcome, 'delivered');
    assert.equal(result.attempts, 1);
    assert.equal(result.status, 200);
    assert.deepEqual(JSON.parse(result.responseText!), { answer: 200 });
    assert.equal(receiver.received.length, 1);
    assert.equal(receiver.received[0]!.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(receiver.received[0]!.body), { event: 'A' });
  });

  test('retries after a 500 on the given schedule, and records every attempt', async () => {
    receiver.script = [500, 503];
    const started = Date.now();
    const result = await dispatcher.dispatch({ area: 'mms', url: `${receiver.url}/pb`, body: { n: 1 }, retrySchedule: [50, 50, 50] });
    assert.equal(result.outcome, 'delivered');
    assert.equal(result.attempts, 3);
    assert.ok(Date.now() - started >= 95, 'waited between attempts');
    const [rec] = dispatcher.list();
    assert.deepEqual(
      rec!.attempts.map((a) => a.status),
      [500, 503, 200],
    );
    assert.equal(rec!.outcome, 'delivered');
  });

  test('gives up after the schedule is used up', async () => {
    receiver.script = [500, 500, 500];
    const result = await dispatcher.dispatch({ area: 'mms', url: `${receiver.url}/pb`, body: {}, retrySchedule: [10, 10] });
    assert.equal(result.outcome, 'failed');
    assert.equal(result.delivered, false);
    assert.equal(result.attempts, 3);
    assert.equal(receiver.received.length, 3);
  });

  test('a timed-out or refused attempt is retried', async () => {
    receiver.script = ['hang'];
    const timedOut = await dispatcher.dispatch({ area: 'voice', url: `${receiver.url}/slow`, body: {}, retrySchedule: [10], timeoutMs: 100 });
    assert.equal(timedOut.outcome, 'delivered');
    assert.equal(timedOut.attempts, 2);
    assert.match(dispatcher.list()[0]!.attempts[0]!.error!, /abort/);

    const refused = await dispatcher.dispatch({ area: 'voice', url: 'http://127.0.0.1:1/nothing', body: {}, retrySchedule: [10] });
    assert.equal(refused.outcome, 'failed');
    assert.equal(refused.attempts, 2);
    assert.ok(dispatcher.list()[1]!.attempts.every((a) => a.error !== undefined && a.status === undefined));
  });

  test('drop: the next N callbacks are never sent', async () => {
    dispatcher.faults.drop = 1;
    const dropped = await dispatcher.dispatch({ area: 'conversation', url: `${receiver.url}/a`, body: { i: 1 } });
    assert.equal(dropped.outcome, 'dropped');
    const sent = await dispatcher.dispatch({ area: 'conversation', url: `${receiver.url}/a`, body: { i: 2 } });
    assert.equal(sent.outcome, 'delivered');
    assert.deepEqual(
      receiver.received.map((r) => JSON.parse(r.body)),
      [{ i: 2 }],
    );
    assert.deepEqual(
      dispatcher.list().map((r) => r.outcome),
      ['dropped', 'delivered'],
    );
  });

  test('duplicate: the next N callbacks are sent twice', async () => {
    dispatcher.faults.duplicate = 1;
    const result = await dispatcher.dispatch({ area: 'senderid', url: `${receiver.url}/d`, body: { i: 1 } });
    assert.equal(result.outcome, 'delivered');
    assert.ok(result.duplicateId);
    await dispatcher.dispatch({ area: 'senderid', url: `${receiver.url}/d`, body: { i: 2 } });
    assert.deepEqual(
      receiver.received.map((r) => JSON.parse(r.body)).sort((a, b) => a.i - b.i),
      [{ i: 1 }, { i: 1 }, { i: 2 }],
    );
    const copy = dispatcher.list().find((r) => r.id === result.duplicateId)!;
    assert.equal(copy.duplicateOf, result.id);
  });

  test('close() cancels pending retries at once', async () => {
    receiver.script = [500];
    const pending = dispatcher.dispatch({ area: 'mms', url: `${receiver.url}/pb`, body: {}, retrySchedule: [60_000] });
    await waitFor(() => receiver.received.length === 1);
    const started = Date.now();
    dispatcher.close();
    const result = await pending;
    assert.equal(result.outcome, 'cancelled');
    assert.ok(Date.now() - started < 1000);
    assert.equal(receiver.received.length, 1);
  });

  test('application signer: verifiable with the callback URL path', async () => {
    await dispatcher.dispatch({
      area: 'verification',
      url: `${receiver.url}/callbacks/verification?tenant=1`,
      body: { event: 'VerificationResultEvent', id: 'v1' },
      signer: applicationCallbackSigner(account.appKey, account.appSecret),
    });
    const r = receiver.received[0]!;
    assert.match(String(r.headers.authorization), /^Application /);
    const ok = verifyApplicationRequest({
      headers: r.headers,
      method: 'POST',
      path: '/callbacks/verification',
      rawBody: r.body,
      secretForKey: (k) => (k === account.appKey ? account.appSecret : undefined),
    });
    assert.deepEqual(ok, { ok: true, appKey: account.appKey });
    const tampered = verifyApplicationRequest({
      headers: r.headers,
      method: 'POST',
      path: '/callbacks/verification',
      rawBody: r.body.replace('v1', 'v2'),
      secretForKey: () => account.appSecret,
    });
    assert.equal(tampered.ok, false);
  });

  test('conversation webhook signer: signature, nonce, timestamp and algorithm headers verify', async () => {
    await dispatcher.dispatch({
      area: 'conversation',
      url: `${receiver.url}/webhooks/conversation`,
      body: { trigger: 'BATCH_STATUS_UPDATE' },
      signer: conversationWebhookSigner('webhook-secret'),
    });
    const r = receiver.received[0]!;
    assert.equal(r.headers['x-platform-webhook-signature-algorithm'], 'HmacSHA256');
    assert.ok(r.headers['x-platform-webhook-signature-nonce']);
    assert.deepEqual(verifyConversationWebhook({ headers: r.headers, rawBody: r.body, secret: 'webhook-secret' }), { ok: true });
    assert.equal(verifyConversationWebhook({ headers: r.headers, rawBody: r.body, secret: 'other' }).ok, false);
  });

  test('sender ID signer: X-Service-Signature is the hex HMAC-SHA1 of the raw body', async () => {
    await dispatcher.dispatch({
      area: 'senderid',
      url: `${receiver.url}/webhooks/senderid`,
      body: { registrationState: 'APPROVED' },
      signer: senderIdCallbackSigner('hmac-secret'),
    });
    const r = receiver.received[0]!;
    const sig = String(r.headers['x-service-signature']);
    assert.match(sig, /^[0-9a-f]{40}$/);
    assert.equal(verifyHmacSha1Hex('hmac-secret', r.body, sig), true);
    assert.equal(verifyHmacSha1Hex('wrong', r.body, sig), false);
  });
});

describe('callbacks through a sandbox', () => {
  const receiver = new DispatchReceiver();
  before(() => receiver.start());
  after(() => receiver.stop());

  test('callback faults and GET /_sandbox/callbacks are wired to the sandbox dispatcher; close() clears timers', async () => {
    const sb = await createSandbox();
    let closed = false;
    try {
      const set = await sb.app.inject({ method: 'POST', url: '/_sandbox/callback-faults', payload: { drop: 1 } });
      assert.equal(set.statusCode, 200);
      const dropped = await sb.context.callbacks.dispatch({ area: 'voice', url: `${receiver.url}/ice`, body: { event: 'ice' } });
      assert.equal(dropped.outcome, 'dropped');
      receiver.script = [500];
      const delivered = await sb.context.callbacks.dispatch({ area: 'voice', url: `${receiver.url}/ice`, body: { event: 'ice' }, retrySchedule: [10] });
      assert.equal(delivered.outcome, 'delivered');

      const listed = await sb.app.inject({ method: 'GET', url: '/_sandbox/callbacks?area=voice' });
      const callbacks = (listed.json() as { callbacks: { outcome: string; attempts: { status?: number }[] }[] }).callbacks;
      assert.deepEqual(
        callbacks.map((c) => c.outcome),
        ['dropped', 'delivered'],
      );
      assert.deepEqual(
        callbacks[1]!.attempts.map((a) => a.status),
        [500, 200],
      );

      receiver.script = [500];
      const pending = sb.context.callbacks.dispatch({ area: 'voice', url: `${receiver.url}/ice`, body: {}, retrySchedule: [600_000] });
      await waitFor(() => receiver.received.length === 3);
      await sb.close();
      closed = true;
      assert.equal((await pending).outcome, 'cancelled');
    } finally {
      if (!closed) await sb.close();
    }
  });
});
