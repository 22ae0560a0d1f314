// The archiver writes a run once, so it does not write one without its state changes' reasons because the worker
// did not answer the run's status query in time: that pass fails, and a later one writes the run with its reasons;
// only a run that has not answered in three passes is written without them, so it cannot stop the archiver.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AesGcmPayloadCodec } from '../../common/codec.js';
import { createLogger } from '../../common/logger.js';
import { AuditArchive } from '../../store/index.js';
import { AuditArchiver } from '../../workers/audit/archiver.js';
import { useHarness } from '../helpers/harness.js';
import { freshNumber, messageFor, report, startVerification } from '../helpers/verification.js';

describe('audit archiver', () => {
  // The worker's own archiver looks once at its start, then not for an hour: the test's archiver is the one that writes.
  const h = useHarness({ env: { RELAYFLOW_AUDIT_ARCHIVE_INTERVAL_MS: '3600000' } });

  const codec = () => new AesGcmPayloadCodec(h.config.codecKeys);
  const archive = () => new AuditArchive(h.store.sql, codec());
  // With no worker polling, a status query waits out the whole wait: these passes wait 1 s, not the default 10 s.
  const archiver = (statusWaitMs?: number) =>
    new AuditArchiver(h.client, archive(), codec(), { keepDays: 1, intervalMs: 100 }, createLogger({ level: 'silent' }), h.config.taskQueue, statusWaitMs);
  const NO_WORKER_WAIT_MS = 1_000;
  const rowOf = async (runId: string) => (await archive().has([runId])).has(runId);
  /** The state entries of the run's archived timeline. */
  const statesOf = async (runId: string) => {
    const run = await archive().run(runId);
    assert.ok(run, 'archived');
    return (run.timeline.masked as { kind: string; summary: string; details: { reason?: string } }[]).filter((e) => e.kind === 'state');
  };
  /** A verification reported SUCCESSFUL and closed: its run ID. */
  async function closedVerification(): Promise<string> {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms' });
    const sms = await messageFor(h, identity, s.current!.verificationId);
    assert.equal((await report(h, s.processId, sms.code!)).statusCode, 200);
    const handle = h.client.workflow.getHandle(s.processId);
    await handle.result();
    return (await handle.describe()).runId;
  }

  test('a run whose status query is not answered in time is archived on a later pass, with its reasons', async () => {
    const runId = await closedVerification();

    // No worker to answer the query (it replays the closed run to answer): nothing is written.
    await h.stopWorker();
    try {
      await assert.rejects(archiver(NO_WORKER_WAIT_MS).pass(), /did not answer its status query/);
      assert.equal(await rowOf(runId), false, 'not archived without its reasons');
    } finally {
      await h.startWorker();
    }

    // A later pass (an archiver with the default wait, from the cursor the failed pass left in the store: the restarted
    // worker's own archiver may write it first; either way, once, with its reasons).
    await archiver().pass();
    const states = await statesOf(runId);
    assert.ok(
      states.some((e) => e.details.reason === 'sms sent'),
      `the start's reason from the status: ${JSON.stringify(states)}`,
    );
  });

  test('a run that does not answer in three passes is archived without its reasons, not held back for good', async () => {
    const runId = await closedVerification();
    const a = archiver(NO_WORKER_WAIT_MS);
    await h.stopWorker();
    try {
      await assert.rejects(a.pass(), /did not answer its status query/);
      await assert.rejects(a.pass(), /did not answer its status query/);
      assert.equal(await rowOf(runId), false);
      await a.pass();
      const states = await statesOf(runId);
      assert.ok(states.length > 0 && states.every((e) => e.details.reason === undefined), JSON.stringify(states));
    } finally {
      await h.startWorker();
    }
  });
});
