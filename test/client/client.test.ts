// @relayflow/client against stub servers: a write's retries reuse one Idempotency-Key and honour Retry-After, a 4xx
// is never retried; verifyEvent accepts what relayflow's own deliverer signs and refuses a tampered body.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRelayflowClient, verifyEvent } from '@relayflow/client';
import { postEvent } from '../../workers/events/post.js';
import { startStub, type StubRequest } from '../helpers/stub-server.js';

/** A stub API answering each request with the next of `answers` (the last one repeats), keeping every request. */
async function stubApi(answers: Array<{ status: number; headers?: Record<string, string>; body?: unknown } | 'drop'>) {
  const seen: StubRequest[] = [];
  const stub = await startStub((req, res) => {
    const answer = answers[Math.min(seen.length, answers.length - 1)]!;
    seen.push(req);
    if (answer === 'drop') return req.socket.destroy();
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body ?? {}));
  });
  const client = createRelayflowClient({ baseUrl: stub.url, apiKey: 'k-0123456789abcdef', retry: { firstDelayMs: 10 } });
  return { stub, client, seen };
}

const started = { processId: 'verification:x', state: 'PENDING' };

describe('retries', () => {
  test('a write answered 503 then 201 is sent twice with the same Idempotency-Key; the 201 is the answer', async (t) => {
    const { stub, client, seen } = await stubApi([
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 201, body: started },
    ]);
    t.after(() => stub.close());
    const res = await client.POST('/v1/verifications', { body: { identity: '+46700000001', method: 'sms' } });
    assert.equal(res.response.status, 201);
    assert.deepEqual(res.data, started);
    assert.equal(seen.length, 2);
    const [first, second] = seen.map((r) => r.headers['idempotency-key']);
    assert.match(String(first), /^[0-9A-HJKMNP-TV-Z]{26}$/, 'a ULID');
    assert.equal(second, first, 'the retry carries the same key');
    assert.equal(seen[1]!.text, seen[0]!.text, 'and the same body');
    assert.equal(seen[0]!.headers.authorization, 'Bearer k-0123456789abcdef');
  });

  test('a 429 waits out its Retry-After; a dropped connection is retried too, with the same key', async (t) => {
    const { stub, client, seen } = await stubApi([{ status: 429, headers: { 'retry-after': '1' } }, 'drop', { status: 201, body: started }]);
    t.after(() => stub.close());
    const t0 = Date.now();
    const res = await client.POST('/v1/verifications', { body: { identity: '+46700000001', method: 'sms' } });
    assert.equal(res.response.status, 201);
    assert.equal(seen.length, 3);
    assert.ok(Date.now() - t0 >= 950, `waited ${Date.now() - t0} ms, not the 1 s Retry-After`);
    assert.equal(new Set(seen.map((r) => r.headers['idempotency-key'])).size, 1);
  });

  test('a 4xx is answered as it is, never retried; each logical call has its own key', async (t) => {
    const { stub, client, seen } = await stubApi([{ status: 400, body: { error: 'validation', message: 'body/identity must match format' } }]);
    t.after(() => stub.close());
    const first = await client.POST('/v1/verifications', { body: { identity: 'x', method: 'sms' } });
    assert.equal(first.response.status, 400);
    assert.equal(seen.length, 1);
    await client.POST('/v1/verifications', { body: { identity: 'x', method: 'sms' } });
    assert.equal(seen.length, 2);
    assert.notEqual(seen[1]!.headers['idempotency-key'], seen[0]!.headers['idempotency-key']);
  });

  test('a caller-given Idempotency-Key is kept; reads get none; retries stop after the attempts', async (t) => {
    const { stub, client, seen } = await stubApi([{ status: 500 }]);
    t.after(() => stub.close());
    const res = await client.POST('/v1/verifications/{processId}/report', {
      params: { path: { processId: 'verification:x' }, header: { 'idempotency-key': 'op-1' } },
      body: { code: '1234' },
    });
    assert.equal(res.response.status, 500, 'the last answer, once the attempts are spent');
    assert.deepEqual(
      seen.map((r) => r.headers['idempotency-key']),
      ['op-1', 'op-1', 'op-1', 'op-1'],
    );
    await client.GET('/v1/processes/{processId}', { params: { path: { processId: 'verification:x' } } });
    assert.equal(seen.at(-1)!.headers['idempotency-key'], undefined);
  });

  test("the caller's abort is not retried", async (t) => {
    const stub = await startStub(() => undefined); // never answers
    t.after(() => stub.close());
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls += 1;
      return fetch(input, init);
    };
    const client = createRelayflowClient({ baseUrl: stub.url, apiKey: 'k-0123456789abcdef', fetch: counting, retry: { firstDelayMs: 10 } });
    const call = client.POST('/v1/verifications', { body: { identity: '+46700000001', method: 'sms' }, signal: AbortSignal.timeout(300) });
    await assert.rejects(call, /abort|timeout/i);
    assert.equal(calls, 1, 'one try: an abort is the caller giving up, not a network error');
  });
});

describe('verifyEvent', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const event = {
    eventId: 'evt_01',
    processId: 'verification:abc',
    kind: 'verification',
    state: 'SUCCESSFUL',
    previousState: 'PENDING',
    at: new Date().toISOString(),
  };

  /** One delivery as relayflow's deliverer signs and sends it, as a receiver gets it. */
  async function delivered(): Promise<StubRequest> {
    let got: StubRequest | undefined;
    const receiver = await startStub((req, res) => {
      got = req;
      res.writeHead(204).end();
    });
    try {
      const job = { deliveryId: 1, attempt: 1, subscriptionId: 'sub_1', url: `${receiver.url}/events`, secrets: [{ secret }], createdAt: new Date(), event };
      const result = await postEvent(job, { timeoutMs: 5_000, allowPrivate: true });
      assert.ok(result.ok, result.error);
      return got!;
    } finally {
      await receiver.close();
    }
  }

  test("accepts a delivery signed by relayflow's deliverer and returns the typed event", async () => {
    const req = await delivered();
    const got = verifyEvent(secret, req.body, req.headers);
    assert.equal(got.type, 'process.state_changed');
    assert.equal(got.data.eventId, 'evt_01');
    assert.equal(got.data.state, 'SUCCESSFUL');
    assert.equal(got.data.businessKey, 'abc');
    // The same through fetch's Headers and a string body.
    const headers = new Headers(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    assert.equal(verifyEvent(secret, req.text, headers).data.processId, 'verification:abc');
  });

  test('refuses a tampered body, another secret and a missing signature', async () => {
    const req = await delivered();
    assert.throws(() => verifyEvent(secret, req.text.replace('SUCCESSFUL', 'FAIL'), req.headers), /signature/i);
    assert.throws(() => verifyEvent(`whsec_${Buffer.alloc(32, 8).toString('base64')}`, req.text, req.headers), /signature/i);
    assert.throws(() => verifyEvent(secret, req.text, { ...req.headers, 'webhook-signature': undefined }), /header/i);
  });
});
