// The process never sends an SMS its caller cannot learn about: a platform that does not accept the start
// ends it ERROR platform_unavailable before the API's deadline, and a process that first runs after that
// deadline ends ABANDONED without a platform request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ulid } from 'ulid';
import { REFERENCE_PREFIX, type VerificationInput } from '../../../processes/verification/contract.js';
import { workflowIds } from '../../../processes/kinds.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { freshNumber, phoneInbox, platformStarts, statusOf, verificationRoutesWith } from '../../helpers/verification.js';

/**
 * The API's start deadline. The process bounds its platform start by it (retries whose backoffs fit, less a
 * 500 ms margin), so the ERROR comes at the last backoff that fits plus the attempts' own time. At 3 s the
 * budget held 4 attempts with about 1 s to spare, which a loaded machine's slow attempts used up (504). At
 * 5.5 s it holds 5 attempts (backoffs 3 s) with 1.5 to 2.5 s to spare; a process that ignored the deadline
 * would still retry for its own 15 s and miss it.
 */
const WAIT_MS = 5_500;
const sandboxFaults = (h: Harness, init: RequestInit) =>
  fetch(`${h.sandbox.url}/_sandbox/faults`, { headers: { 'content-type': 'application/json' }, ...init });

describe('verification deadlines', () => {
  let h: Harness;
  let routes: Awaited<ReturnType<typeof verificationRoutesWith>>;
  before(async () => {
    h = await startHarness();
    routes = await verificationRoutesWith(h, { waitMs: WAIT_MS });
  });
  after(async () => {
    await routes.app.close();
    await h.close();
  });

  // First: it also takes a fresh worker's first tasks and the first platform token, which would otherwise
  // come out of the next test's deadline.
  test('a start in time is not affected by startBy', async () => {
    const identity = freshNumber();
    const res = await routes.app.inject({ method: 'POST', url: '/v1/verifications', payload: { identity, method: 'sms' } });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().state, 'PENDING');
    assert.equal((await platformStarts(h, identity)).length, 1);
  });

  test('the platform does not accept the start: ERROR platform_unavailable before the API deadline; no retry later; the guard counts it once', async () => {
    const identity = freshNumber();
    await sandboxFaults(h, {
      method: 'POST',
      body: JSON.stringify({ area: 'verification', method: 'POST', pathContains: '/verifications', status: 503, count: 1_000 }),
    });
    let res;
    const t0 = Date.now();
    try {
      res = await routes.app.inject({ method: 'POST', url: '/v1/verifications', payload: { identity, method: 'sms' } });
    } finally {
      await sandboxFaults(h, { method: 'DELETE' });
    }
    assert.equal(res.statusCode, 201, res.body);
    const { processId, state, reason } = res.json();
    assert.equal(state, 'ERROR');
    assert.match(reason, /^platform_unavailable: /);
    // The API's own deadline started after t0: the process ended before it (the 201 says it answered in time).
    const ended = (await statusOf(h, processId)).history as { state: string; at: string }[];
    const erredAt = Date.parse(ended.find((c) => c.state === 'ERROR')!.at);
    assert.ok(erredAt < t0 + WAIT_MS, `ERROR ${erredAt - t0} ms after the start`);
    const tried = (await platformStarts(h, identity)).length;
    assert.ok(tried >= 1, 'the platform was asked');

    // Final: the platform is back, and still nothing is sent for this process.
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal((await platformStarts(h, identity)).length, tried);
    assert.deepEqual(await phoneInbox(h, identity), []);
    const view = await statusOf(h, processId);
    assert.equal(view.state, 'ERROR');
    assert.deepEqual(view.details.platformVerifications, []);
    // The guard admitted it once and finds it by number, in its final state.
    const recent = (await routes.verifications.recent(identity)).map((a) => a.processId);
    assert.deepEqual(recent, [processId]);
    const byNumber = await h.api({ method: 'GET', url: `/v1/verifications?identity=${encodeURIComponent(identity)}&method=sms` });
    assert.equal(byNumber.json().process.state, 'ERROR');
  });

  test('a process whose first task runs after startBy ends ABANDONED and makes no platform request', async () => {
    const identity = freshNumber();
    const id = ulid();
    const input: VerificationInput = {
      identity,
      steps: [{ method: 'sms', timeoutMs: 60_000 }],
      policy: { codeExpiryMs: 60_000, maxReportAttempts: 3, resendCooldownMs: 0, maxResends: 1 },
      platformReferencePrefix: `${REFERENCE_PREFIX}-${id}`,
      startBy: Date.now() - 1_000,
    };
    const processId = workflowIds.verification(id);
    await h.client.workflow.start('verification', { workflowId: processId, taskQueue: h.config.taskQueue, args: [input] });
    const ended = await h.waitForState(processId, 'ABANDONED');
    assert.match((ended.history as { reason?: string }[]).at(-1)!.reason!, /^started_late: .*nothing was sent/);
    assert.deepEqual(await platformStarts(h, identity), []);
    assert.deepEqual(await phoneInbox(h, identity), []);
  });
});
