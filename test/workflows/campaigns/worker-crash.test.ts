// Two send workers in their own processes, sharing the campaign store in PostgreSQL: the campaign's chunks are
// spread over both, and killing one with SIGKILL mid-chunk (or all of them, then restarting one) loses nothing
// and sends nothing twice.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { generateCodecKey } from '../../../common/codec.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { sharedDatabaseUrl } from '../../helpers/shared-postgres.js';
import { conversationStats, createApp, numbers, startCampaign, waitForCampaign } from '../../helpers/campaigns.js';
import { ulid } from 'ulid';
import { entryArgs } from '../../helpers/compiled-tree.js';

function startSendWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, entryArgs('test/helpers/send-worker-process.ts'), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      if (b.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`send worker exited early (${code})`)));
  });
}

describe('campaign across two worker processes', () => {
  let pg: TestPostgres;
  let h: Harness;
  const workers: ChildProcess[] = [];
  let env: Record<string, string>;
  let common: Record<string, string>;

  before(async () => {
    // A database of its own on the run's PostgreSQL (a server of its own when the file runs alone): the worker
    // processes reach it by its URL.
    const shared = await sharedDatabaseUrl();
    pg = shared ? { url: shared, stop: async () => undefined } : await startPostgres();
    env = {
      RELAYFLOW_DATABASE_URL: pg.url,
      RELAYFLOW_TASK_QUEUE: `test-${ulid()}`,
      RELAYFLOW_CODEC_KEYS: generateCodecKey('test'),
      RELAYFLOW_CAMPAIGN_CHUNK_SIZE: '40',
      RELAYFLOW_CAMPAIGN_HEARTBEAT_TIMEOUT_MS: '3000',
      PLATFORM_REQUEST_TIMEOUT_MS: '2000',
    };
    h = await startHarness({ env, withoutSendWorker: true });
    common = {
      ...env,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
      RELAYFLOW_API_KEYS: 'test-api-key-0123456789abcdef',
      PLATFORM_SANDBOX_URL: h.sandbox.url,
      TEST_PUBLIC_URL: h.apiUrl,
    };
    workers.push(await startSendWorker(common), await startSendWorker(common));
  });
  after(async () => {
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
    await h?.close();
    await pg?.stop();
  });

  test('a worker killed mid-chunk: the other finishes, every recipient accepted exactly once', async () => {
    const appId = await createApp(h, 60);
    const { processId, campaignId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(360),
      conversation: { appId, region: 'eu', channel: 'SMS', text: 'hello' },
    });
    // Let both workers take chunks, then kill one in the middle of its work: while a chunk runs on it (a kill between
    // two of its chunks, which a loaded CI machine once hit, leaves nothing to retry).
    const runsOnFirst = async () => {
      const { raw } = await h.client.workflow.getHandle(processId).describe();
      return (raw.pendingActivities ?? []).some((a) => a.lastWorkerIdentity?.startsWith(`${workers[0]!.pid}@`));
    };
    const deadline = Date.now() + 30_000;
    while (((await conversationStats(h, appId)).accepted < 120 || !(await runsOnFirst())) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    workers[0]!.kill('SIGKILL');
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    const stats = await conversationStats(h, appId);
    assert.deepEqual([stats.accepted, stats.distinctRecipients, stats.duplicateRecipients], [360, 360, 0]);
    assert.equal((await h.store.counts(campaignId))!.byStatus.sent, 360);

    // Both worker processes ran chunks (their identities are pid@host).
    const identities = new Set<string>();
    let retried = 0;
    for (const run of await runsOf(h, processId)) {
      const history = await h.client.workflow.getHandle(processId, run).fetchHistory();
      for (const e of history.events ?? []) {
        if (e.activityTaskStartedEventAttributes?.identity) identities.add(e.activityTaskStartedEventAttributes.identity);
        if ((e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1) retried++;
      }
    }
    assert.ok(identities.size >= 2, `chunks ran on ${[...identities].join(', ')}`);
    assert.ok(retried >= 1, "the killed worker's chunk was retried elsewhere");
  });

  test('every worker killed mid-campaign and one restarted: the campaign finishes, each recipient once', async () => {
    const appId = await createApp(h, 60);
    const { processId, campaignId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(180, 10_000),
      conversation: { appId, region: 'eu', channel: 'SMS', text: 'hello' },
    });
    const deadline = Date.now() + 30_000;
    while ((await conversationStats(h, appId)).accepted < 60 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Every worker still running killed, and gone (an exit event: its last sends have left it).
    const running = workers.filter((w) => w.exitCode === null && w.signalCode === null);
    await Promise.all(running.map((w) => new Promise((r) => (w.once('exit', r), w.kill('SIGKILL')))));
    // Sends they made before dying may still be on their way in (the sandbox answers in this busy process): the count
    // has settled once it holds for a second (a load of 16 here kept 10 coming in after a fixed second).
    let stalled = (await conversationStats(h, appId)).accepted;
    for (let before = -1, settle = Date.now() + 30_000; before !== stalled;) {
      assert.ok(Date.now() < settle, `sends went on after every worker died (${stalled} sent)`);
      before = stalled;
      await new Promise((r) => setTimeout(r, 1_000));
      stalled = (await conversationStats(h, appId)).accepted;
    }
    // Nothing sends while no worker runs.
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal((await conversationStats(h, appId)).accepted, stalled, 'no worker, no sends');
    assert.ok(stalled < 180, `the campaign was mid-way when the workers died (${stalled} sent)`);

    workers.push(await startSendWorker(common));
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED'], 120_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    const stats = await conversationStats(h, appId);
    assert.deepEqual([stats.accepted, stats.distinctRecipients, stats.duplicateRecipients], [180, 180, 0]);
    assert.equal((await h.store.counts(campaignId))!.byStatus.sent, 180);
  });
});

async function runsOf(h: Harness, processId: string): Promise<string[]> {
  const runs: string[] = [];
  for await (const w of h.client.workflow.list({ query: `WorkflowId = '${processId}'` })) runs.push(w.runId);
  return runs;
}
