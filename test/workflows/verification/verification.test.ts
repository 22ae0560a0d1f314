// Phone verification through the API on the real Temporal dev server against the sandbox: every method,
// the fallback chain, attempts, expiry, resend, cancel, the guard, callbacks and platform faults.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
// By path, not `@relayflow/client`: this file runs compiled to JavaScript, without tsx for the package's TypeScript.
import { createRelayflowClient } from '../../../packages/client/src/index.js';
import { TEST_API_KEY, useHarness, setSandboxVerificationConfig, type Harness } from '../../helpers/harness.js';
import { freshNumber, messageFor, phoneInbox, report, startOnPlatform, startVerification, type Started } from '../../helpers/verification.js';

const sandboxPost = (h: Harness, path: string, body: unknown) =>
  fetch(`${h.sandbox.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('verification', () => {
  const h = useHarness({ env: { RELAYFLOW_VERIFICATION_GUARD_MAX: '3' } }, async (h) => {
    await setSandboxVerificationConfig(h.sandbox.url, { callout: { startPollingAfter: 0, stopPollingAfter: 60, pollingInterval: 1 } });
  });

  test('SMS, through the typed client over HTTP: the start answers with what the client needs; the right code verifies', async () => {
    const client = createRelayflowClient({ baseUrl: h.apiUrl, apiKey: TEST_API_KEY });
    const identity = freshNumber();
    const start = await client.POST('/v1/verifications', { body: { identity, method: 'sms', language: 'es-ES', reference: `ref-${Date.now()}` } });
    assert.equal(start.response.status, 201, JSON.stringify(start.error));
    // The document types the start's `current` and the report's answer loosely (unknown): read as the tests do elsewhere.
    const s = start.data as Started;
    assert.equal(s.state, 'PENDING');
    assert.match(s.current!.sms!.template!, /\{\{CODE\}\}/);
    assert.equal(s.current!.language, 'es-ES');
    const sms = await messageFor(h, identity, s.current!.verificationId);
    const res = await client.POST('/v1/verifications/{processId}/report', { params: { path: { processId: s.processId } }, body: { code: sms.code! } });
    assert.equal(res.response.status, 200, JSON.stringify(res.error));
    assert.equal((res.data as { result: string }).result, 'SUCCESSFUL');
    const done = await h.waitForState(s.processId, 'SUCCESSFUL');
    assert.equal((done.details as { attempts: number }).attempts, 1);
  });

  test('a wrong code counts as an attempt; a repeated report (same Idempotency-Key) changes nothing; attempts run out', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms', policy: { maxReportAttempts: 2 } });
    const first = await report(h, s.processId, '000000', 'op-1');
    assert.equal(first.json().result, 'FAIL');
    assert.equal(first.json().attemptsLeft, 1);
    const again = await report(h, s.processId, '000000', 'op-1');
    assert.deepEqual(again.json(), first.json(), 'the duplicate report is answered from memory');
    const second = await report(h, s.processId, '111111', 'op-2');
    assert.equal(second.json().attemptsLeft, 0);
    const failed = await h.waitForState(s.processId, 'FAIL');
    assert.match((failed.history as { reason?: string }[]).at(-1)!.reason!, /no report attempts left/);
    const late = await report(h, s.processId, '222222', 'op-3');
    assert.equal(late.statusCode, 409, late.body);
  });

  test('FlashCall: reporting the CLI that called verifies', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'flashcall' });
    assert.ok(s.current!.flashCall!.cliFilter, 'CLI filter returned');
    const call = await messageFor(h, identity, s.current!.verificationId);
    assert.match(call.cli!, new RegExp(s.current!.flashCall!.cliFilter!));
    assert.equal((await report(h, s.processId, call.cli!)).json().result, 'SUCCESSFUL');
    await h.waitForState(s.processId, 'SUCCESSFUL');
  });

  test('Phone Call: relayflow polls the platform until the callee has entered the code', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'callout' });
    const call = await messageFor(h, identity, s.current!.verificationId);
    const answered = await sandboxPost(h, `/_sandbox/verification/${s.current!.verificationId}/callout-answered`, { code: call.code });
    assert.equal(answered.status, 200);
    await h.waitForState(s.processId, 'SUCCESSFUL', 20_000);
  });

  test('Data (seamless): the device visits the target URI; polling sees the result', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'seamless' });
    const uri = s.current!.seamless!.targetUri!;
    assert.ok(uri.startsWith('http'), uri);
    assert.equal((await fetch(uri)).status, 200);
    await h.waitForState(s.processId, 'SUCCESSFUL', 20_000);
    const r = await report(h, s.processId, '1234');
    assert.equal(r.statusCode, 409, 'no code to report for Data');
  });

  test('the fallback chain moves on when a step does not succeed in time', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, {
      identity,
      fallback: [
        { method: 'sms', timeoutSeconds: 2 },
        { method: 'flashcall', timeoutSeconds: 60 },
      ],
    });
    assert.equal(s.current!.method, 'sms');
    let view: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) {
      view = (await h.api({ method: 'GET', url: `/v1/verifications/${encodeURIComponent(s.processId)}` })).json();
      if ((view.details as { currentStep: number }).currentStep === 1 && (view.details as { current?: { method: string } }).current?.method === 'flashcall')
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const current = (view.details as { current: { verificationId: string } }).current;
    assert.ok(
      (view.history as { reason?: string }[]).some((c) => /falling back to flashcall/.test(c.reason ?? '')),
      JSON.stringify(view.history),
    );
    const call = await messageFor(h, identity, current.verificationId);
    assert.equal((await report(h, s.processId, call.cli!)).json().result, 'SUCCESSFUL');
    await h.waitForState(s.processId, 'SUCCESSFUL');
  });

  test('an expired code fails the process with reason Expired', async () => {
    const s = await startVerification(h, { identity: freshNumber(), method: 'sms', policy: { codeExpirySeconds: 2 } });
    const failed = await h.waitForState(s.processId, 'FAIL', 15_000);
    assert.match((failed.history as { reason?: string }[]).at(-1)!.reason!, /Expired/);
  });

  test('resend honours its cooldown, then sends a new code that verifies', async () => {
    const identity = freshNumber();
    // 4 s: the early resend must reach the process within the cooldown (1 s ran out on a loaded machine).
    const s = await startVerification(h, { identity, method: 'sms', policy: { resendCooldownSeconds: 4, maxResends: 1 } });
    const early = await h.api({ method: 'POST', url: `/v1/verifications/${encodeURIComponent(s.processId)}/resend` });
    assert.equal(early.statusCode, 429, early.body);
    const retryAfter = Number(early.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 4, String(retryAfter));
    // Retry-After is whole seconds rounded up: past it, the cooldown has ended.
    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 100));
    const resent = await h.api({ method: 'POST', url: `/v1/verifications/${encodeURIComponent(s.processId)}/resend` });
    assert.equal(resent.statusCode, 200, resent.body);
    const newId = resent.json().current.verificationId;
    assert.notEqual(newId, s.current!.verificationId);
    const more = await h.api({ method: 'POST', url: `/v1/verifications/${encodeURIComponent(s.processId)}/resend` });
    assert.ok([409, 429].includes(more.statusCode), 'no resends left');
    const sms = await messageFor(h, identity, newId);
    assert.equal((await report(h, s.processId, sms.code!)).json().result, 'SUCCESSFUL');
    const done = await h.waitForState(s.processId, 'SUCCESSFUL');
    assert.equal(done.state as string, 'SUCCESSFUL', 'the ABORTED result of the replaced SMS did not end the process');
  });

  test('an Idempotency-Key: a retried start reaches the same process and sends nothing again; once it has ended, 409', async () => {
    const identity = freshNumber();
    const key = `start-${Date.now()}`;
    const start = (number: string) =>
      h.api({ method: 'POST', url: '/v1/verifications', payload: { identity: number, method: 'sms' }, headers: { 'idempotency-key': key } });
    const first = await start(identity);
    assert.equal(first.statusCode, 201, first.body);
    const again = await start(identity);
    assert.equal(again.statusCode, 201, again.body);
    assert.deepEqual([again.json().processId, again.json().state], [first.json().processId, 'PENDING']);
    assert.equal((await phoneInbox(h, identity)).filter((m) => m.method === 'sms').length, 1);
    // The key is per number: the same key for another number is another verification.
    const other = await start(freshNumber());
    assert.notEqual(other.json().processId, first.json().processId);
    await h.api({ method: 'POST', url: `/v1/verifications/${encodeURIComponent(first.json().processId)}/cancel` });
    await h.waitForState(first.json().processId, 'CANCELLED');
    // While the process is still open, the key answers its state; once it has closed, the key is spent.
    const late = await start(identity);
    if (late.statusCode === 201) assert.deepEqual([late.json().processId, late.json().state], [first.json().processId, 'CANCELLED']);
    await h.client.workflow.getHandle(first.json().processId).result();
    const spent = await start(identity);
    assert.equal(spent.statusCode, 409, spent.body);
    assert.equal(spent.json().error.code, 'idempotency_key_spent');
    assert.equal((await phoneInbox(h, identity)).filter((m) => m.method === 'sms').length, 1);
  });

  test('cancel ends the process; a report after it is refused', async () => {
    const s = await startVerification(h, { identity: freshNumber(), method: 'sms' });
    const c = await h.api({ method: 'POST', url: `/v1/verifications/${encodeURIComponent(s.processId)}/cancel` });
    assert.equal(c.statusCode, 200);
    assert.equal(c.json().state, 'CANCELLED');
    await h.waitForState(s.processId, 'CANCELLED');
    assert.equal((await report(h, s.processId, '123456')).statusCode, 409);
  });

  test('the per-number guard refuses the fourth start in the window, and denies SDK verifications over it', async () => {
    const identity = freshNumber();
    for (let i = 0; i < 3; i++) await startVerification(h, { identity, method: 'sms' });
    const res = await h.api({ method: 'POST', url: '/v1/verifications', payload: { identity, method: 'sms' } });
    assert.equal(res.statusCode, 429);
    assert.equal(res.json().error.details[0].field, 'body.identity');
    assert.ok(res.headers['retry-after']);
    const sdk = await startOnPlatform(h, identity);
    assert.equal(sdk.status, 403, 'the VerificationRequestEvent was answered deny');
    const other = await startOnPlatform(h, freshNumber());
    assert.equal(other.status, 200, 'an SDK verification under the limit is allowed');
  });

  test('a newer verification on the platform aborts the process, even when no callback arrives (polling)', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, fallback: [{ method: 'sms', timeoutSeconds: 3 }] });
    // No callback URL: neither the request event nor the ABORTED result reaches relayflow.
    await setSandboxVerificationConfig(h.sandbox.url, { callbackUrl: null });
    try {
      assert.equal((await startOnPlatform(h, identity)).status, 200);
    } finally {
      await setSandboxVerificationConfig(h.sandbox.url, { callbackUrl: `${h.apiUrl}/callbacks/verification` });
    }
    const aborted = await h.waitForState(s.processId, 'ABORTED', 20_000);
    assert.equal(aborted.state, 'ABORTED');
  });

  test('the platform answering 503 and 429 on start: the process still starts, and sends one SMS', async () => {
    const identity = freshNumber();
    await sandboxPost(h, '/_sandbox/faults', { area: 'verification', method: 'POST', status: 503, count: 1 });
    await sandboxPost(h, '/_sandbox/faults', { area: 'verification', method: 'POST', status: 429, count: 1, retryAfterSeconds: 1 });
    const s = await startVerification(h, { identity, method: 'sms' });
    assert.equal(s.state, 'PENDING');
    const sms = await messageFor(h, identity, s.current!.verificationId);
    assert.equal((await report(h, s.processId, sms.code!)).json().result, 'SUCCESSFUL');
  });

  /** The platform's next `count` starts answer 403 40300 with `message`. */
  const denyNextStarts = (message: string, count: number) =>
    sandboxPost(h, '/_sandbox/faults', { area: 'verification', method: 'POST', status: 403, count, body: { errorCode: 40300, message } });

  test('a platform denial ends the process as DENIED', async () => {
    await denyNextStarts('Denied by guard', 1);
    const s = await startVerification(h, { identity: freshNumber(), method: 'sms' });
    assert.equal(s.state, 'DENIED');
    assert.match(s.reason!, /Denied by guard/);
  });

  test('a callback denial (the platform got no answer from relayflow) is started again: one SMS, and it succeeds', async () => {
    const identity = freshNumber();
    await denyNextStarts('Invalid callback', 1);
    const s = await startVerification(h, { identity, method: 'sms' });
    assert.equal(s.state, 'PENDING');
    const view = (await h.api({ method: 'GET', url: `/v1/verifications/${encodeURIComponent(s.processId)}` })).json();
    assert.ok(
      view.history.some((e: { reason?: string }) => /Invalid callback.*nothing was sent; starting again in 1 s/.test(e.reason ?? '')),
      JSON.stringify(view.history),
    );
    const sms = await messageFor(h, identity, s.current!.verificationId);
    assert.equal((await report(h, s.processId, sms.code!)).json().result, 'SUCCESSFUL');
    assert.equal((await phoneInbox(h, identity)).length, 1, 'one SMS reached the phone');
  });

  test('a callback denial that persists ends DENIED after three starts', async () => {
    await denyNextStarts('Denied by callback', 3);
    const s = await startVerification(h, { identity: freshNumber(), method: 'sms' });
    assert.equal(s.state, 'DENIED');
    assert.match(s.reason!, /Denied by callback \(3 starts\)/);
  });

  test('status by identity and method, by reference, and a report by identity', async () => {
    const identity = freshNumber();
    const reference = `order-${Date.now()}`;
    const s = await startVerification(h, { identity, method: 'sms', reference });
    const byIdentity = await h.api({ method: 'GET', url: `/v1/verifications?identity=${encodeURIComponent(identity)}&method=sms` });
    assert.equal(byIdentity.json().process.processId, s.processId);
    let byRef: { source?: string; process?: { processId: string } } = {};
    for (let i = 0; i < 50 && byRef.source !== 'process'; i++) {
      byRef = (await h.api({ method: 'GET', url: `/v1/verifications?reference=${reference}` })).json();
      if (byRef.source !== 'process') await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(byRef.process!.processId, s.processId);
    const sms = await messageFor(h, identity, s.current!.verificationId);
    const r = await h.api({ method: 'POST', url: `/v1/verifications/by-identity/${encodeURIComponent(identity)}/report`, payload: { code: sms.code } });
    assert.equal(r.json().result, 'SUCCESSFUL');
    const none = await h.api({ method: 'POST', url: `/v1/verifications/by-identity/${encodeURIComponent(freshNumber())}/report`, payload: { code: '1234' } });
    assert.equal(none.statusCode, 404);
  });

  test('bad input is a 400 (or 422) naming the field, and starts nothing', async () => {
    const cases: Array<[Record<string, unknown>, string, number?]> = [
      [{ identity: '12345', method: 'sms' }, 'body.identity'],
      [{ identity: '+4670000', method: 'sms' }, 'body.identity'],
      [{ identity: freshNumber(), method: 'carrier-pigeon' }, 'body.method'],
      // Allowed by the document, refused by the rule between the two fields: 422.
      [{ identity: freshNumber() }, 'body.method', 422],
      [{ identity: freshNumber(), method: 'sms', fallback: [{ method: 'sms' }] }, 'body.method', 422],
    ];
    for (const [payload, field, status = 400] of cases) {
      const res = await h.api({ method: 'POST', url: '/v1/verifications', payload });
      assert.equal(res.statusCode, status, JSON.stringify(payload));
      assert.ok(
        res.json().error.details.some((d: { field: string }) => d.field === field),
        `${field}: ${res.body}`,
      );
    }
    const s = await startVerification(h, { identity: freshNumber(), method: 'sms' });
    const shape = await report(h, s.processId, 'not a code!');
    assert.equal(shape.statusCode, 400);
    assert.equal(shape.json().error.details[0].field, 'body.code');
    assert.equal((await report(h, 'verification:01ARZ3NDEKTSV4RRFFQ69G5FAV', '1234')).statusCode, 404);
  });

  test('callbacks need a valid application signature', async () => {
    const res = await fetch(`${h.apiUrl}/callbacks/verification`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Application sandbox-app-key:bm90LWEtc2lnbmF0dXJl',
        'x-timestamp': new Date().toISOString(),
      },
      body: JSON.stringify({ event: 'VerificationResultEvent', id: 'x', status: 'SUCCESSFUL' }),
    });
    assert.equal(res.status, 401);
    const unsigned = await fetch(`${h.apiUrl}/callbacks/verification`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(unsigned.status, 401);
  });
});
