// A worker killed (SIGKILL) after the platform accepted a verification's first send, before the workflow task that
// sent it completed: the next worker runs that task again, no longer a first try, so the start looks the platform
// verification up by its reference and resumes it. One SMS, one platform verification, and the code still verifies.
// Also when that task runs again only after the caller's deadline (startBy): the process does not end ABANDONED
// saying nothing was sent, it finds the SMS that was. Real Temporal, the sandbox, and the worker in a process of its
// own (workers/main.ts), killed as a crash would.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { ulid } from 'ulid';
import { generateCodecKey } from '../../../common/codec.js';
import { startHarness, TEST_API_KEY, type Harness } from '../../helpers/harness.js';
import { freshNumber, phoneInbox, report, statusOf, verificationRoutesWith } from '../../helpers/verification.js';
import { entryArgs } from '../../helpers/compiled-tree.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
}

/** The platform holds its answers back by `ms` after doing the work. */
async function holdAnswers(h: Harness, ms: number): Promise<void> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/latency`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ area: 'verification', ms, phase: 'after' }),
  });
  assert.equal(res.status, 200, await res.text());
}

const smsOf = async (h: Harness, identity: string) => (await phoneInbox(h, identity)).filter((m) => m.method === 'sms');

describe('a worker killed between the platform accepting the first send and its workflow task completing', () => {
  const taskQueue = `test-${ulid()}`;
  const codecKeys = generateCodecKey('test');
  let h: Harness;
  let worker: ChildProcess | undefined;
  before(async () => {
    h = await startHarness({ withoutWorker: true, env: { RELAYFLOW_TASK_QUEUE: taskQueue, RELAYFLOW_CODEC_KEYS: codecKeys } });
  });
  after(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    // A failure before the harness's own worker started: start it, so its close shuts the SDK's runtime down (an
    // installed runtime no worker ever used keeps the test process alive).
    await h?.startWorker();
    await h?.close();
  });

  /** A worker in a process of its own on the test's task queue, once it polls; resolves its exit. */
  async function spawnWorker(): Promise<{ exited: Promise<unknown> }> {
    worker = spawn(process.execPath, entryArgs('workers/main.ts'), {
      env: {
        ...process.env,
        RELAYFLOW_TASK_QUEUE: taskQueue,
        RELAYFLOW_CODEC_KEYS: codecKeys,
        RELAYFLOW_API_KEYS: TEST_API_KEY,
        PLATFORM_SANDBOX_URL: h.sandbox.url,
        RELAYFLOW_LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = once(worker, 'exit');
    const early = exited.then(([code]) => {
      throw new Error(`the worker process exited (${String(code)}) before it was killed`);
    });
    early.catch(() => undefined);
    await until('the worker process polls', 60_000, async () => {
      if (worker!.exitCode !== null) await early;
      const { pollers } = await h.client.workflowService.describeTaskQueue({
        namespace: h.client.options.namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: 1, // workflow
      });
      // Its own pollers (the SDK's identity is pid@host): an earlier worker's stay listed for a while.
      return (pollers ?? []).some((p) => p.identity?.startsWith(`${worker!.pid}@`)) ? true : undefined;
    });
    return { exited };
  }

  test('sends no second SMS: the next worker resumes the platform verification', async () => {
    const { exited } = await spawnWorker();

    const identity = freshNumber();
    const key = `crash-${ulid()}`;
    const start = () => h.api({ method: 'POST', url: '/v1/verifications', payload: { identity, method: 'sms' }, headers: { 'idempotency-key': key } });
    // The platform sends the SMS at once and holds the start's answer back: the worker dies with it on its way.
    await holdAnswers(h, 8_000);
    const first = start();
    const [sms] = await until('the SMS', 15_000, async () => ((await smsOf(h, identity)).length > 0 ? smsOf(h, identity) : undefined));
    worker!.kill('SIGKILL');
    await exited;
    await holdAnswers(h, 0);
    await h.startWorker();

    // The first request may lose its answer with the task; a client retries with its key and joins the process.
    let res = await first;
    for (let i = 0; res.statusCode !== 201 && i < 20; i += 1) {
      await sleep(500);
      res = await start();
    }
    assert.equal(res.statusCode, 201, res.body);
    const started = res.json() as { processId: string; state: string; current: { verificationId: string } };
    assert.equal(started.state, 'PENDING');
    assert.equal(started.current.verificationId, sms!.verificationId, 'the process resumed the verification the SMS belongs to');

    const { events } = await h.client.workflow.getHandle(started.processId).fetchHistory();
    const timedOut = (events ?? []).filter((e) => e.workflowTaskTimedOutEventAttributes || e.workflowTaskFailedEventAttributes);
    assert.ok(timedOut.length >= 1, 'the killed worker\u2019s task was given to the next one');
    const view = (await h.api({ method: 'GET', url: `/v1/verifications/${encodeURIComponent(started.processId)}` })).json() as {
      details: { platformVerifications: { verificationId: string }[] };
    };
    assert.deepEqual(
      view.details.platformVerifications.map((p) => p.verificationId),
      [sms!.verificationId],
    );

    const reported = await report(h, started.processId, sms!.code!);
    assert.equal(reported.json().result, 'SUCCESSFUL', reported.body);
    assert.equal((await smsOf(h, identity)).length, 1, 'one SMS, after the crash and the retries');
  });

  test("the task run again after the caller's deadline finds the SMS that was sent, rather than saying none was", async () => {
    await h.stopWorker();
    const { exited } = await spawnWorker();
    // The caller waits 4 s (its deadline, startBy); the platform sends the SMS at once and holds its answer back.
    const routes = await verificationRoutesWith(h, { waitMs: 4_000 });
    try {
      const identity = freshNumber();
      await holdAnswers(h, 8_000);
      const first = routes.app.inject({ method: 'POST', url: '/v1/verifications', payload: { identity, method: 'sms' } });
      const [sms] = await until('the SMS', 15_000, async () => ((await smsOf(h, identity)).length > 0 ? smsOf(h, identity) : undefined));
      worker!.kill('SIGKILL');
      await exited;
      await holdAnswers(h, 0);
      const res = await first;
      assert.equal(res.statusCode, 504, res.body);
      const processId = (res.json() as { error: { details: { message: string }[] } }).error.details[0]!.message;
      assert.match(processId, /^verification:/);
      // The killed worker's task times out; the next worker runs it well past the deadline.
      await h.startWorker();
      const view = await h.waitForView(
        processId,
        (v) => (v.details as { current?: unknown }).current !== undefined || !['STARTING', 'PENDING'].includes(v.state as string),
        'the first send settled',
        60_000,
      );
      assert.equal(view.state, 'PENDING', JSON.stringify(view.history));
      assert.deepEqual(
        (view.details as { platformVerifications: { verificationId: string }[] }).platformVerifications.map((p) => p.verificationId),
        [sms!.verificationId],
      );
      assert.match(
        (view.history as { reason?: string }[]).at(-1)!.reason!,
        /sent before a worker failure; found by its reference \d+ s after the caller's deadline/,
      );

      const reported = await report(h, processId, sms!.code!);
      assert.equal(reported.json().result, 'SUCCESSFUL', reported.body);
      assert.equal((await smsOf(h, identity)).length, 1, 'one SMS');
      assert.equal((await statusOf(h, processId)).state, 'SUCCESSFUL');
    } finally {
      await holdAnswers(h, 0);
      await routes.app.close();
    }
  });
});
