// POST /v1/verifications never hangs: with the store not answering (the guards' table held by another transaction)
// or no worker on the processes' task queue it answers 504 within its deadline, naming the processId, and a process
// that first runs after that deadline sends nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ulid } from 'ulid';
import { createLogger } from '../../../common/logger.js';
import { createWorker } from '../../../workers/worker.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { freshNumber, phoneInbox, platformStarts, startVerification, statusOf, verificationRoutesWith } from '../../helpers/verification.js';

const WAIT_MS = 1_500;
// Room for a loaded machine (files run side by side on two cores); a start without the deadline would wait far longer.
const SLACK_MS = 3_000;

describe('verification start deadline', () => {
  let h: Harness;
  let routes: Awaited<ReturnType<typeof verificationRoutesWith>>;
  const idle = `idle-${ulid()}`; // a task queue nobody polls (until the last test)
  before(async () => {
    h = await startHarness();
    routes = await verificationRoutesWith(h, { waitMs: WAIT_MS, taskQueue: idle });
  });
  after(async () => {
    await routes.app.close();
    await h.close();
  });

  const post = (identity: string) => routes.app.inject({ method: 'POST', url: '/v1/verifications', payload: { identity, method: 'sms' } });

  test('the store does not answer in time: 504 within the deadline, naming the processId; nothing was started', async () => {
    let release!: () => void;
    let locked!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const isLocked = new Promise<void>((r) => (locked = r));
    // Another transaction holds the per-number guard's table, as a stuck or overloaded database would.
    const holding = h.store.sql.transaction(async (tx) => {
      await tx.query('LOCK TABLE relayflow_verification_admissions IN EXCLUSIVE MODE');
      locked();
      await held;
    });
    await isLocked;
    const t0 = Date.now();
    let res;
    try {
      res = await post(freshNumber());
    } finally {
      release();
      await holding;
    }
    const took = Date.now() - t0;
    assert.equal(res.statusCode, 504, res.body);
    assert.ok(took < WAIT_MS + SLACK_MS, `answered after ${took} ms`);
    const { error } = res.json();
    assert.equal(error.code, 'store_timeout');
    const processId = error.details[0].message as string;
    assert.match(processId, /^verification:[0-9A-Z]{26}$/);
    assert.match(error.message, new RegExp(`did not answer in time; ${processId} was not started: retry later$`));
    assert.equal((await h.api({ method: 'GET', url: `/v1/verifications/${encodeURIComponent(processId)}` })).statusCode, 404);
  });

  test('the guard answers but no worker runs the process: 504 naming it; started later, it ends ABANDONED and sends nothing', async () => {
    const identity = freshNumber();
    // A first start through the harness's app (its queue is polled): only the second process goes unanswered.
    await startVerification(h, { identity, method: 'sms' });
    assert.equal((await platformStarts(h, identity)).length, 1);

    const t0 = Date.now();
    const res = await post(identity);
    const took = Date.now() - t0;
    assert.equal(res.statusCode, 504, res.body);
    assert.ok(took < WAIT_MS + SLACK_MS, `answered after ${took} ms`);
    const { error } = res.json();
    assert.equal(error.code, 'process_timeout');
    const processId = error.details.find((d: { field: string }) => d.field === 'processId').message as string;
    assert.match(error.message, new RegExp(processId));

    // A worker for that queue comes up after the caller's deadline: the process must not send the SMS now.
    const logger = createLogger({ name: 'test', level: 'silent' });
    const { worker, connection } = await createWorker({ config: routes.config, logger, workflowBundlePath: process.env.RELAYFLOW_WORKFLOW_BUNDLE });
    const running = worker.run();
    try {
      const ended = await h.waitForState(processId, 'ABANDONED', 20_000);
      assert.match((ended.history as { reason?: string }[]).at(-1)!.reason!, /^started_late: /);
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
    assert.equal((await platformStarts(h, identity)).length, 1, 'no platform start for the abandoned process');
    assert.equal((await phoneInbox(h, identity)).length, 1, 'the phone got only the first SMS');
    assert.equal((await statusOf(h, processId)).details.current, undefined);
  });
});
