// Verification benchmark: many concurrent SMS verifications started and reported through the API against the
// sandbox, beside a baseline measured in the same run on the same server and client: a bare workflow
// started by update-with-start and answered by an update. Prints the ratios; the target is >= 0.7 throughput.
//   npm run bench -- [total=200] [concurrency=20] [rounds=2]
import { WithStartWorkflowOperation } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { ulid } from 'ulid';
import { startDevServer } from '../scripts/lib/dev-server.js';
import { buildWorkflowBundle } from '../workers/build-bundle.js';
import { createDataConverter } from '../common/data-converter.js';
import { figures, pool, type RunFigures, type Samples } from './stats.js';
import { baselineAnswer, baselineStarted } from './baseline-workflow.js';
import { startHarness, TEST_API_KEY } from '../test/helpers/harness.js';
import { profiled } from './cpu-profile.js';
import { nodeTransport } from '../common/http-transport.js';
import { countTasks, perUnit } from './task-counts.js';
import { subjectHasher } from '../common/subject-hash.js';
import { workflowIds } from '../contracts/ids.js';

const total = Number(process.argv[2] ?? 200);
const concurrency = Number(process.argv[3] ?? 20);
const rounds = Number(process.argv[4] ?? 2);
const t00 = Date.now();
const log = (m: string) => process.stdout.write(`${process.env.BENCH_TIMES ? `[${((Date.now() - t00) / 1000).toFixed(1)}s] ` : ''}${m}\n`);

log('starting the Temporal dev server');
const server = await startDevServer({ log });
log(`Temporal dev server on ${server.address} (${server.cli.source})`);
process.env.TEMPORAL_ADDRESS = server.address;
log('building the workflow bundle');
process.env.RELAYFLOW_WORKFLOW_BUNDLE = await buildWorkflowBundle(fileURLToPath(new URL('../.relayflow/bench/workflow-bundle.js', import.meta.url)));
log('starting the sandbox, a worker and the API');
const h = await startHarness({
  sandbox: { rateLimits: { perProjectPerSecond: 100_000, perAppPerSecond: 100_000 } },
  env: { RELAYFLOW_VERIFICATION_GUARD_MAX: '1000000' },
});

/** Workflows of each run, for counting the tasks behind a verification (guards: one per fresh number). */
const sampled = { relayflow: [] as string[], guards: [] as string[], baseline: [] as string[] };
const SAMPLE = 30;
const guardOf = subjectHasher(h.config.codecKeys);
let runNo = 0;
const never = new AbortController().signal;

async function relayflowRun(n: number): Promise<Samples> {
  runNo += 1;
  const sample = n >= total;
  const startMs: number[] = [];
  const answerMs: number[] = [];
  const auth = { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' };
  // The load's own HTTP client: keep-alive node:http, the lightest there is (the baseline has none).
  const call = (url: string, method: string, body?: unknown) =>
    nodeTransport(new URL(url), { method, headers: body === undefined ? {} : auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: never });
  const t0 = performance.now();
  await pool(n, concurrency, async (i) => {
    // A fresh number per verification (and per run): each pays for its own per-number guard.
    const identity = `+4673${runNo}${process.pid % 10}${String(i).padStart(5, '0')}`;
    let t = performance.now();
    const started = await call(`${h.apiUrl}/v1/verifications`, 'POST', { identity, method: 'sms' });
    if (started.status !== 201) throw new Error(`start failed: ${started.status} ${started.text}`);
    startMs.push(performance.now() - t);
    const { processId, current } = JSON.parse(started.text) as { processId: string; current: { verificationId: string } };
    if (sample && sampled.relayflow.length < SAMPLE) {
      sampled.relayflow.push(processId);
      sampled.guards.push(workflowIds.numberGuard(guardOf(identity)));
    }
    const inbox = JSON.parse((await call(`${h.sandbox.url}/_sandbox/verification/phones/${encodeURIComponent(identity)}`, 'GET')).text) as { messages: { verificationId: string; code: string }[] };
    const code = inbox.messages.find((m) => m.verificationId === current.verificationId)!.code;
    t = performance.now();
    const outcome = JSON.parse((await call(`${h.apiUrl}/v1/verifications/${encodeURIComponent(processId)}/report`, 'POST', { code })).text) as { result?: string };
    if (outcome.result !== 'SUCCESSFUL') throw new Error(`report failed: ${JSON.stringify(outcome)}`);
    answerMs.push(performance.now() - t);
  });
  return { startMs, answerMs, seconds: (performance.now() - t0) / 1000 };
}

// The baseline's worker lives through its warm-up and measured runs, like relayflow's.
const baselineQueue = `bench-baseline-${ulid()}`;
const baselineConnection = await NativeConnection.connect({ address: server.address });
const baselineWorker = await Worker.create({
  connection: baselineConnection,
  taskQueue: baselineQueue,
  workflowsPath: fileURLToPath(new URL('./baseline-workflow.ts', import.meta.url)),
  // Same client, same codec: the baseline pays for encryption too.
  dataConverter: createDataConverter(h.config.codecKeys),
});
const baselineRunning = baselineWorker.run();

async function baselineRun(n: number): Promise<Samples> {
  const sample = n >= total;
  const startMs: number[] = [];
  const answerMs: number[] = [];
  const t0 = performance.now();
  await pool(n, concurrency, async () => {
    let t = performance.now();
    const workflowId = `baseline:${ulid()}`;
    if (sample && sampled.baseline.length < SAMPLE) sampled.baseline.push(workflowId);
    const op = new WithStartWorkflowOperation('baselineVerification', { workflowId, taskQueue: baselineQueue, workflowIdConflictPolicy: 'FAIL' });
    await h.client.workflow.executeUpdateWithStart(baselineStarted, { startWorkflowOperation: op });
    startMs.push(performance.now() - t);
    const handle = await op.workflowHandle();
    t = performance.now();
    await handle.executeUpdate(baselineAnswer, { args: ['123456'] });
    answerMs.push(performance.now() - t);
  });
  return { startMs, answerMs, seconds: (performance.now() - t0) / 1000 };
}

try {
  log(`verification benchmark: ${rounds} rounds of ${total} verifications each side, ${concurrency} at a time (warm-up ${Math.min(20, total)} each first)`);
  await baselineRun(Math.min(20, total));
  await relayflowRun(Math.min(20, total));
  const baseRuns: Samples[] = [];
  const rfRuns: Samples[] = [];
  // Alternating which side goes first, with a pause before each run: the server finishes the previous
  // run's background work (closing workflows, visibility) before the next is measured.
  const settle = () => new Promise((r) => setTimeout(r, 3_000));
  const measureBaseline = async () => {
    await settle();
    baseRuns.push(await baselineRun(total));
  };
  const measureRelayflow = async (round: number) => {
    await settle();
    rfRuns.push(await profiled(round === 0 ? process.env.RELAYFLOW_BENCH_CPU_PROFILE : undefined, () => relayflowRun(total)));
  };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      await measureBaseline();
      await measureRelayflow(round);
    } else {
      await measureRelayflow(round);
      await measureBaseline();
    }
    const ratio = rfRuns[round]!.answerMs.length / rfRuns[round]!.seconds / (baseRuns[round]!.answerMs.length / baseRuns[round]!.seconds);
    log(`round ${round + 1}: throughput ratio ${ratio.toFixed(2)}`);
  }
  const base = figures(baseRuns);
  const rf = figures(rfRuns);
  const row = (name: string, f: RunFigures) =>
    `${name.padEnd(10)} ${f.perSecond.toFixed(1).padStart(8)} /s   start p50 ${f.start.p50.toFixed(1).padStart(7)} ms  p99 ${f.start.p99.toFixed(1).padStart(7)} ms   report p50 ${f.answer.p50.toFixed(1).padStart(7)} ms  p99 ${f.answer.p99.toFixed(1).padStart(7)} ms`;
  log(row('baseline', base));
  log(row('relayflow', rf));
  const ratio = rf.perSecond / base.perSecond;
  log(`throughput ratio relayflow/baseline, all rounds: ${ratio.toFixed(2)} (target >= 0.70: ${ratio >= 0.7 ? 'met' : 'NOT met'})`);
  // Let the sampled processes take their last callbacks and close before counting.
  await new Promise((r) => setTimeout(r, 2_000));
  const n = sampled.relayflow.length;
  log(`per verification, from ${n} sampled: baseline ${perUnit(await countTasks(h.client, sampled.baseline), sampled.baseline.length)}`);
  log(`                                relayflow process ${perUnit(await countTasks(h.client, sampled.relayflow), n)}`);
  log(`                                + per-number guard ${perUnit(await countTasks(h.client, sampled.guards), n)}`);
  log(`latency ratios relayflow/baseline: start p50 ${(rf.start.p50 / base.start.p50).toFixed(2)}, p99 ${(rf.start.p99 / base.start.p99).toFixed(2)}; report p50 ${(rf.answer.p50 / base.answer.p50).toFixed(2)}, p99 ${(rf.answer.p99 / base.answer.p99).toFixed(2)}`);
} finally {
  // The figures are out: a shutdown that hangs must not keep the command running.
  setTimeout(() => {
    log('shutdown took over 60 s; exiting anyway');
    process.exit(1);
  }, 60_000).unref();
  log('stopping: baseline worker');
  baselineWorker.shutdown();
  await baselineRunning;
  await baselineConnection.close(); // an open connection would keep the process alive
  log('stopping: relayflow worker, API and sandbox');
  await h.close();
  log('stopping: Temporal dev server');
  await server.stop();
  log('stopped');
}
