// The audit outlives Temporal's retention: a verification closes, the worker's archiver writes it to the store, its
// history is deleted from Temporal, and the list, the timeline (JSON and CSV) and the export still tell it, the same
// as before, saying it comes from the archive; an edited archive row is caught by the chain check.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { AesGcmPayloadCodec } from '../../../common/codec.js';
import { AuditArchive } from '../../../store/index.js';
import { useHarness, TEST_API_KEY, uniqueName } from '../../helpers/harness.js';
import { freshNumber, messageFor, report, startVerification } from '../../helpers/verification.js';
import { reviewerEvent, startApprovedTemplate, waitUntil } from '../../helpers/provisioning.js';

const auth = { authorization: `Bearer ${TEST_API_KEY}` };

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 50; Date.now() < deadline; wait = Math.min(wait * 2, 500)) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, wait));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('audit archive', () => {
  const h = useHarness({
    env: { RELAYFLOW_AUDIT_ARCHIVE_INTERVAL_MS: '200', RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' },
    sandbox: { provisioningReviewer: { templates: { outcome: 'approve', delayMs: 100 } } },
  });

  test('a closed process whose history is deleted is still listed, told and exported, from the archive', async () => {
    const identity = freshNumber();
    const s = await startVerification(h, { identity, method: 'sms', reference: `archive-${Date.now()}` });
    const sms = await messageFor(h, identity, s.current!.verificationId);
    assert.equal((await report(h, s.processId, sms.code!)).statusCode, 200);
    await h.waitForState(s.processId, 'SUCCESSFUL');
    const { runId } = await h.client.workflow.getHandle(s.processId).describe();

    const timelineUrl = `/v1/processes/${encodeURIComponent(s.processId)}/timeline?pageSize=500`;
    const listUrl = `/v1/processes?kind=verification&key=${encodeURIComponent(s.processId)}`;
    const get = async (url: string, headers: Record<string, string> = {}) => {
      const res = await h.api({ method: 'GET', url, headers: { ...auth, ...headers } });
      assert.equal(res.statusCode, 200, res.body);
      return res;
    };
    // The worker's archiver writes the run once it has closed (it looks every 200 ms here).
    await until('the run archived', async () => {
      const rows = await h.store.sql.query('SELECT 1 FROM relayflow_audit_archive WHERE run_id = $1', [runId]);
      return rows.length ? true : undefined;
    });
    const before = (await get(timelineUrl)).json() as { entries: unknown[]; source: string };
    assert.equal(before.source, 'temporal');
    assert.ok(before.entries.length > 3);
    const listedBefore = (await get(listUrl)).json() as { processes: Record<string, unknown>[] };
    assert.equal(listedBefore.processes.length, 1);
    assert.equal(listedBefore.processes[0]!.source, 'temporal');

    await h.client.workflowService.deleteWorkflowExecution({ namespace: h.client.options.namespace, workflowExecution: { workflowId: s.processId, runId } });
    await until('the history deleted', () =>
      h.client.workflow
        .getHandle(s.processId)
        .describe()
        .then(
          () => undefined,
          (err: unknown) => (err instanceof WorkflowNotFoundError ? true : Promise.reject(err)),
        ),
    );

    // The same timeline, from the archive.
    const after = (await get(timelineUrl)).json() as { entries: unknown[]; source: string; nextPageToken: string };
    assert.equal(after.source, 'archive');
    assert.deepEqual(after.entries, before.entries);
    assert.equal(after.nextPageToken, '');
    const csv = await get(timelineUrl, { accept: 'text/csv' });
    assert.equal(csv.headers['x-timeline-source'], 'archive');
    assert.equal(csv.body.trim().split('\r\n').length, before.entries.length + 1);
    assert.ok(!JSON.stringify(after.entries).includes(identity.slice(-7)), 'phone numbers masked');

    // Still listed, with the same summary, once visibility has dropped it too.
    const listed = await until('the list from the archive', async () => {
      const body = (await get(listUrl)).json() as { processes: Record<string, unknown>[] };
      return body.processes[0]?.source === 'archive' ? body.processes : undefined;
    });
    assert.equal(listed.length, 1);
    const { source: _a, ...was } = listedBefore.processes[0]!;
    const { source: _b, ...now } = listed[0]!;
    assert.deepEqual(now, was);
    const all = (await get(`/v1/processes?kind=verification&q=${encodeURIComponent(s.processId.slice('verification:'.length))}`)).json() as {
      processes: { processId: string }[];
    };
    assert.ok(
      all.processes.some((p) => p.processId === s.processId),
      'found by text too',
    );

    // The export: JSON Lines of the range and kind, this run among them, with the same timeline.
    const from = new Date(Date.now() - 10 * 60_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const exported = await get(`/v1/audit/export?from=${from}&to=${to}&kind=verification`);
    assert.match(String(exported.headers['content-type']), /^application\/jsonl/);
    const lines = exported.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { processId: string; runId: string; entries: unknown[]; state: string });
    const mine = lines.find((l) => l.runId === runId);
    assert.ok(mine, 'the run is exported');
    assert.equal(mine.state, 'SUCCESSFUL');
    assert.deepEqual(mine.entries, before.entries);
    const bad = await h.api({ method: 'GET', url: `/v1/audit/export?from=${to}&to=${from}`, headers: auth });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.match(bad.body, /query\.to/);

    // An edited row breaks its chain.
    const archive = new AuditArchive(h.store.sql, new AesGcmPayloadCodec(h.config.codecKeys));
    assert.deepEqual(await archive.verify(s.processId), []);
    await h.store.sql.query(`UPDATE relayflow_audit_archive SET state = 'FAILED' WHERE run_id = $1`, [runId]);
    assert.deepEqual(await archive.verify(s.processId), [{ processId: s.processId, n: 1, problem: 'its content does not match its hash (edited)' }]);
  });

  test("a long-lived process's first run, deleted by retention while the process goes on, is told from the archive", async () => {
    const { handle, processId, templateId } = await startApprovedTemplate(h, uniqueName('archive').replace(/-/g, '_'));
    const scores = ['QUALITY_SCORE_GREEN', 'QUALITY_SCORE_YELLOW', 'QUALITY_SCORE_RED', 'QUALITY_SCORE_YELLOW', 'QUALITY_SCORE_GREEN', 'QUALITY_SCORE_RED'];
    for (const qualityScore of scores) {
      await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_QUALITY_SCORE_UPDATED', details: { qualityScore } });
      await waitUntil(h, processId, (v) => v.details.qualityScore === qualityScore, `quality ${qualityScore}`);
    }
    await waitUntil(h, processId, (v) => (v as unknown as { execution: { runId: string } }).execution.runId !== handle.firstExecutionRunId, 'a new run');
    const firstRunId = handle.firstExecutionRunId;
    await until('the first run archived', async () => {
      const rows = await h.store.sql.query('SELECT 1 FROM relayflow_audit_archive WHERE run_id = $1', [firstRunId]);
      return rows.length ? true : undefined;
    });
    const url = `/v1/processes/${encodeURIComponent(processId)}/timeline?pageSize=500`;
    const read = async () => {
      const res = await h.api({ method: 'GET', url, headers: auth });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { entries: { runId: string }[]; source: string };
    };
    const before = await read();
    assert.ok(before.entries.some((e) => e.runId === firstRunId) && before.entries.some((e) => e.runId !== firstRunId), 'two runs told');

    await h.client.workflowService.deleteWorkflowExecution({
      namespace: h.client.options.namespace,
      workflowExecution: { workflowId: processId, runId: firstRunId },
    });
    await until('the first run deleted', () =>
      h.client.workflowService
        .getWorkflowExecutionHistory({ namespace: h.client.options.namespace, execution: { workflowId: processId, runId: firstRunId } })
        .then(
          () => undefined,
          () => true,
        ),
    );
    const after = await read();
    assert.equal(after.source, 'temporal', 'the process is still in Temporal');
    // The runs still in Temporal may have gone on meanwhile: the first run and what was told before are the same.
    assert.deepEqual(after.entries.slice(0, before.entries.length), before.entries);
  });
});
