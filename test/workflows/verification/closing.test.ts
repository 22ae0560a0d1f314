// How a verification closes: only in a workflow task that answered no update (Temporal refuses a task that
// completes the run while a signal came in, and the updates answered in it would be lost to their callers), and
// with the one step timer it started, left running (no TimerCanceled, no second timer). Real Temporal, sandbox.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
// @temporalio/proto is CommonJS: in native ESM only its default export is reliable.
import proto from '@temporalio/proto';
import { useHarness, setSandboxVerificationConfig, type Harness } from '../../helpers/harness.js';
import { freshNumber, messageFor, report, startVerification } from '../../helpers/verification.js';
import { VERIFICATION_CALLBACK_PATH } from '../../../contracts/callbacks.js';

const { EventType } = proto.temporal.api.enums.v1;

interface SandboxCallback {
  body: { event?: string; id?: string };
  outcome: string;
  attempts: { at: string; status?: number; durationMs: number }[];
}

const sandbox = (h: Harness, method: string, path: string, body?: unknown) =>
  fetch(`${h.sandbox.url}/_sandbox${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

/** The platform holds its answers back by `ms` after doing the work (its callbacks go out at once). */
async function holdAnswers(h: Harness, ms: number): Promise<void> {
  const res = await sandbox(h, 'POST', '/latency', { area: 'verification', ms, phase: 'after' });
  assert.equal(res.status, 200, await res.text());
}

async function resultCallback(h: Harness, verificationId: string): Promise<SandboxCallback | undefined> {
  const { callbacks } = (await (await sandbox(h, 'GET', '/callbacks?area=verification')).json()) as { callbacks: SandboxCallback[] };
  return callbacks.find((c) => c.body.event === 'VerificationResultEvent' && c.body.id === verificationId);
}

/** Short names of the run's history events, with the update or signal each names. */
async function eventsOf(h: Harness, processId: string): Promise<string[]> {
  const { events } = await h.client.workflow.getHandle(processId).fetchHistory();
  return (events ?? []).map((e) => {
    const name = EventType[e.eventType ?? 0]!.replace('EVENT_TYPE_', '');
    const detail =
      e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ?? e.workflowExecutionSignaledEventAttributes?.signalName ?? '';
    return detail ? `${name}:${detail}` : name;
  });
}

const withinSeconds = async <T>(s: number, p: Promise<T>): Promise<T> =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${s} s`)), s * 1000).unref())]);

describe('closing a verification', () => {
  const h = useHarness();

  test("the platform's result arriving while the report is being answered: the report answers SUCCESSFUL, the result is recorded, the run closes on it", async () => {
    for (let round = 0; round < 3; round += 1) {
      const identity = freshNumber();
      const s = await startVerification(h, { identity, method: 'sms' });
      const verificationId = s.current!.verificationId;
      const sms = await messageFor(h, identity, verificationId);
      // The platform verifies the code and sends its result callback at once, and answers the report 800 ms later:
      // the callback's signal reaches the run while the workflow task that answers the report is still running.
      await holdAnswers(h, 800);
      let res: Awaited<ReturnType<typeof report>>;
      try {
        res = await report(h, s.processId, sms.code!);
      } finally {
        await holdAnswers(h, 0);
      }
      const answeredAt = Date.now();
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json() as { accepted: boolean; state: string; result: string };
      assert.deepEqual([answer.accepted, answer.state, answer.result], [true, 'SUCCESSFUL', 'SUCCESSFUL'], res.body);

      const callback = await resultCallback(h, verificationId);
      assert.ok(callback, 'the platform sent its result callback');
      const delivered = callback.attempts.at(-1)!;
      assert.equal(delivered.status, 200, JSON.stringify(callback));
      assert.ok(Date.parse(delivered.at) + delivered.durationMs < answeredAt, 'relayflow took the callback before the report was answered');

      // The run closes on the result (its step's timer would be minutes away), in a task after the report's answer.
      const result = await withinSeconds(10, h.client.workflow.getHandle(s.processId).result());
      assert.equal((result as { state: string }).state, 'SUCCESSFUL');
      const events = await eventsOf(h, s.processId);
      const answered = events.indexOf('WORKFLOW_EXECUTION_UPDATE_COMPLETED', events.indexOf('WORKFLOW_EXECUTION_UPDATE_ACCEPTED:reportCode'));
      const signalled = events.lastIndexOf('WORKFLOW_EXECUTION_SIGNALED:platformEvent');
      assert.ok(answered > 0 && signalled > answered, events.join(' '));
      assert.equal(events.filter((e) => e === 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED:reportCode').length, 1, events.join(' '));
      assert.equal(events.at(-1), 'WORKFLOW_EXECUTION_COMPLETED');
      // The result is the process's own record: the platform's word on its verification.
      const view = (await h.api({ method: 'GET', url: `/v1/verifications/${encodeURIComponent(s.processId)}` })).json() as {
        state: string;
        details: { attempts: number; platformVerifications: { verificationId: string; status: string }[] };
      };
      assert.equal(view.state, 'SUCCESSFUL');
      assert.equal(view.details.attempts, 1);
      assert.deepEqual(
        view.details.platformVerifications.map((p) => [p.verificationId, p.status]),
        [[verificationId, 'SUCCESSFUL']],
      );
    }
  });

  test('with no result callback, a run reported SUCCESSFUL closes when its one step timer fires: no second timer, none cancelled', async () => {
    await setSandboxVerificationConfig(h.sandbox.url, { callbackUrl: null });
    try {
      const identity = freshNumber();
      const s = await startVerification(h, { identity, fallback: [{ method: 'sms', timeoutSeconds: 3 }] });
      const sms = await messageFor(h, identity, s.current!.verificationId);
      const res = await report(h, s.processId, sms.code!);
      assert.equal(res.json().state, 'SUCCESSFUL', res.body);
      const handle = h.client.workflow.getHandle(s.processId);
      assert.equal((await handle.describe()).status.name, 'RUNNING', 'it waits for the platform to say so too');
      const result = await withinSeconds(15, handle.result());
      assert.equal((result as { state: string }).state, 'SUCCESSFUL');
      const events = await eventsOf(h, s.processId);
      assert.deepEqual(
        events.filter((e) => e.startsWith('TIMER')),
        ['TIMER_STARTED', 'TIMER_FIRED'],
        events.join(' '),
      );
    } finally {
      await setSandboxVerificationConfig(h.sandbox.url, { callbackUrl: `${h.apiUrl}${VERIFICATION_CALLBACK_PATH}` });
    }
  });
});
