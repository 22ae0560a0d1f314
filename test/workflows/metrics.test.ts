// The worker's /metrics (the Temporal SDK's Prometheus exporter, installed with the runtime), scraped before
// and after two subprojects ran: the SDK's own worker series, relayflow's process endings by kind and final
// state, and the worker's platform calls, checked against the sandbox's own request log.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../common/logger.js';
import { installRuntime } from '../../workers/runtime.js';
import { startHarness, uniqueName, type Harness } from '../helpers/harness.js';
import { scrape, total, type Sample } from '../helpers/metrics.js';
import { freePort } from '../helpers/ports.js';
import { within } from '../helpers/deadline.js';

const ENDED = 'relayflow_processes_ended_total';

async function start(h: Harness, displayName: string): Promise<string> {
  const res = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName } });
  assert.equal(res.statusCode, 202, res.body);
  return res.json<{ processId: string }>().processId;
}

/**
 * The run's end as Temporal has it. Not the API's view: a closed run answers its state query only when a worker
 * replays it, and on a loaded CI machine those queries missed their 3 s deadline for 30 s in a row.
 */
async function runEnd(h: Harness, processId: string): Promise<'COMPLETED' | 'FAILED'> {
  const end = h.client.workflow
    .getHandle(processId)
    .result()
    .then(
      () => 'COMPLETED' as const,
      () => 'FAILED' as const,
    );
  return within(end, 60_000, () => assert.fail(`${processId} did not end within 60 s`));
}

async function sandboxCalls(h: Harness): Promise<number> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/requests?area=subprojects`);
  return ((await res.json()) as { requests: unknown[] }).requests.length;
}

describe('worker metrics', () => {
  let h: Harness;
  let url: string;
  before(async () => {
    // The runtime is process-wide and installed once: with the exporter here, the harness's install is a no-op.
    const served = installRuntime(createLogger({ name: 'test', level: 'silent' }), {
      handleSignals: false,
      metrics: { host: '127.0.0.1', port: await freePort(), explicit: true },
    });
    assert.ok(served, 'the runtime serves the worker metrics');
    url = served;
    // Long enough for the usability checks to meet 403s first (they must not count as errors), shorter than the default 5 s.
    h = await startHarness({ sandbox: { subprojectReadyAfterMs: 1_500 } });
  });
  after(async () => h?.close());

  test('the SDK worker series, process endings by kind and state, and the platform calls move', async () => {
    const queue = { task_queue: h.config.taskQueue };
    const before = await scrape(url);
    const callsBefore = await sandboxCalls(h);

    const ready = await start(h, uniqueName('metrics-ok'));
    assert.equal(await runEnd(h, ready), 'COMPLETED', 'READY ends the run');
    // The platform refuses the next creation: a validation error ends that process FAILED at once.
    const fault = await fetch(`${h.sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ area: 'subprojects', method: 'POST', status: 400, count: 1 }),
    });
    assert.ok(fault.ok);
    const failed = await start(h, uniqueName('metrics-bad'));
    assert.equal(await runEnd(h, failed), 'FAILED');

    // A run is counted as its last workflow task completes, a moment after its state shows.
    // The SDK tags workflow metrics with taskQueue and workflowType (its own series say task_queue, workflow_type).
    const ended = (s: Sample[], state: string) => total(s, ENDED, { taskQueue: h.config.taskQueue, kind: 'subproject', state });
    // Waits for every counter asserted below: on a loaded CI machine 5 s were not always enough.
    let after = await scrape(url);
    const moved = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);
    const counted = () =>
      ended(after, 'READY') >= 1 &&
      ended(after, 'FAILED') >= 1 &&
      moved('temporal_workflow_completed', { ...queue, workflow_type: 'subprojectProvisioning' }) >= 1 &&
      moved('temporal_workflow_failed', { ...queue, workflow_type: 'subprojectProvisioning' }) >= 1;
    for (const deadline = Date.now() + 30_000; !counted() && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 100));
      after = await scrape(url);
    }

    assert.equal(ended(before, 'READY') + ended(before, 'FAILED'), 0, 'a fresh task queue');
    assert.equal(ended(after, 'READY'), 1);
    assert.equal(ended(after, 'FAILED'), 1);
    assert.equal(total(after, ENDED, { taskQueue: h.config.taskQueue, workflowType: 'subprojectProvisioning' }), 2, 'nothing else ended, nothing twice');

    // The SDK's own series, from the same endpoint.
    assert.ok(moved('temporal_workflow_task_queue_poll_succeed', queue) >= 2, 'workflow tasks polled');
    assert.equal(moved('temporal_workflow_completed', { ...queue, workflow_type: 'subprojectProvisioning' }), 1);
    assert.equal(moved('temporal_workflow_failed', { ...queue, workflow_type: 'subprojectProvisioning' }), 1);

    // Every platform call the worker made, as the sandbox saw them (nothing else calls subprojects here); the
    // 403s of a subproject not usable yet are the answer its checks wait through, not errors.
    const calls = (await sandboxCalls(h)) - callsBefore;
    assert.ok(calls >= 3, 'two creates and a usability check at least');
    assert.equal(moved('relayflow_platform_calls_total', { area: 'subprojects' }), calls);
    assert.equal(moved('relayflow_platform_calls_total', { area: 'subprojects', outcome: 'error' }), 1);
    assert.equal(moved('relayflow_platform_call_errors_total', { area: 'subprojects', type: 'validation' }), 1);
    assert.equal(moved('relayflow_platform_call_errors_total', { area: 'subprojects', type: 'auth' }), 0);
  });
});
