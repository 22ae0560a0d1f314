// Verification benchmark: many concurrent SMS verifications started and reported through the API against the
// sandbox, beside a baseline measured in the same run on the same server and client: a bare workflow
// started by update-with-start and answered by an update. Prints the ratios; the target is >= 0.7 throughput
// in every round, and start and report p50 at most 50 ms over the baseline's. Ends with a BENCH_JSON line
// (bench/result.ts) for `npm run bench`.
//   RELAYFLOW_BENCH_PROFILE=short|full npx tsx bench/verification.ts [total] [concurrency] [rounds]
//   short: 30 verifications, 2 rounds (within 40 s with the start on this loaded 2-core machine); full (default): 200, 3 rounds
import { WithStartWorkflowOperation } from '@temporalio/client';
import { ulid } from 'ulid';
import { figures, pool, type RunFigures, type Samples } from './stats.js';
import { baselineAnswer, baselineStarted } from './baseline-workflow.js';
import { TEST_API_KEY } from '../test/helpers/harness.js';
import { profiled } from './cpu-profile.js';
import { nodeTransport } from '../common/http-transport.js';
import { countTasks, perUnit, type TaskCounts } from './task-counts.js';
import { benchProfile, log, shutdown, sleep, startBaselineWorker, startChild, startStack } from './bench-stack.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { emitBenchResult, type BenchRow } from './result.js';

const profile = benchProfile();
const P =
  profile === 'short' ? { total: 30, rounds: 2, warmUp: 10, settleMs: 1_000, sample: 10 } : { total: 200, rounds: 3, warmUp: 20, settleMs: 3_000, sample: 30 };
const total = Number(process.argv[2] ?? P.total);
const concurrency = Number(process.argv[3] ?? 20);
const rounds = Number(process.argv[4] ?? P.rounds);

// A deployment's topology around one relayflow process (its API and worker): the store on PostgreSQL and the
// platform (the sandbox) in a process of its own, so neither's CPU is counted on relayflow's event loop.
// RELAYFLOW_BENCH_STORE=embedded measures `npm start`'s instead: PGlite and the sandbox in this process.
const embedded = process.env.RELAYFLOW_BENCH_STORE === 'embedded';
const pg = embedded ? undefined : await startPostgres();
const platform = embedded ? undefined : await startChild(['sandbox/main.ts'], { SANDBOX_PORT: '0', RELAYFLOW_LOG_LEVEL: 'warn' }, /sandbox listening on (\S+)/);
process.once('exit', () => platform?.child.kill('SIGKILL'));
const stack = await startStack({
  ...(platform ? { sandboxUrl: platform.match[1]! } : { sandbox: { rateLimits: { perProjectPerSecond: 100_000 } } }),
  env: { RELAYFLOW_VERIFICATION_GUARD_MAX: '1000000', ...(pg ? { RELAYFLOW_DATABASE_URL: pg.url } : {}) },
});
const { server, h } = stack;

/** Workflows of each run, for counting the tasks behind a verification. */
const sampled = { relayflow: [] as string[], baseline: [] as string[] };
/** When the first measured relayflow run started: what else the verifications started since is counted too. */
let measuredSince: Date | undefined;
let runNo = 0;
/** Longest the load waits for one HTTP answer (a signal of its own per request: a shared one collects a listener per request in flight). */
const REQUEST_TIMEOUT_MS = 60_000;

async function relayflowRun(n: number): Promise<Samples> {
  runNo += 1;
  const sample = n >= total;
  const startMs: number[] = [];
  const answerMs: number[] = [];
  const auth = { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' };
  // The load's own HTTP client: keep-alive node:http, the lightest there is (the baseline has none).
  const call = (url: string, method: string, body?: unknown) =>
    nodeTransport(new URL(url), {
      method,
      headers: body === undefined ? {} : auth,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  const t0 = performance.now();
  await pool(n, concurrency, async (i) => {
    // A fresh number per verification (and per run): each pays for whatever a new number costs.
    const identity = `+4673${runNo}${process.pid % 10}${String(i).padStart(5, '0')}`;
    let t = performance.now();
    const started = await call(`${h.apiUrl}/v1/verifications`, 'POST', { identity, method: 'sms' });
    if (started.status !== 201) throw new Error(`start failed: ${started.status} ${started.text}`);
    startMs.push(performance.now() - t);
    const { processId, current } = JSON.parse(started.text) as { processId: string; current: { verificationId: string } };
    if (sample && sampled.relayflow.length < P.sample) sampled.relayflow.push(processId);
    const inbox = JSON.parse((await call(`${h.sandbox.url}/_sandbox/verification/phones/${encodeURIComponent(identity)}`, 'GET')).text) as {
      messages: { verificationId: string; code: string }[];
    };
    const code = inbox.messages.find((m) => m.verificationId === current.verificationId)!.code;
    t = performance.now();
    const outcome = JSON.parse((await call(`${h.apiUrl}/v1/verifications/${encodeURIComponent(processId)}/report`, 'POST', { code })).text) as {
      result?: string;
    };
    if (outcome.result !== 'SUCCESSFUL') throw new Error(`report failed: ${JSON.stringify(outcome)}`);
    answerMs.push(performance.now() - t);
  });
  return { startMs, answerMs, seconds: (performance.now() - t0) / 1000 };
}

const baseline = await startBaselineWorker(stack, new URL('./baseline-workflow.ts', import.meta.url));

async function baselineRun(n: number): Promise<Samples> {
  const sample = n >= total;
  const startMs: number[] = [];
  const answerMs: number[] = [];
  const t0 = performance.now();
  await pool(n, concurrency, async () => {
    let t = performance.now();
    const workflowId = `baseline:${ulid()}`;
    if (sample && sampled.baseline.length < P.sample) sampled.baseline.push(workflowId);
    const op = new WithStartWorkflowOperation('baselineVerification', { workflowId, taskQueue: baseline.taskQueue, workflowIdConflictPolicy: 'FAIL' });
    await h.client.workflow.executeUpdateWithStart(baselineStarted, { startWorkflowOperation: op });
    startMs.push(performance.now() - t);
    const handle = await op.workflowHandle();
    t = performance.now();
    await handle.executeUpdate(baselineAnswer, { args: ['123456'] });
    answerMs.push(performance.now() - t);
  });
  return { startMs, answerMs, seconds: (performance.now() - t0) / 1000 };
}

/** Workflows started since `since` that are neither a verification process nor the baseline's. */
async function othersStartedSince(since: Date): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of h.client.workflow.list({ query: `StartTime >= '${since.toISOString()}'` }))
    if (w.type !== 'verification' && w.type !== 'baselineVerification') ids.push(w.workflowId);
  return ids;
}

const perSecond = (r: Samples) => r.answerMs.length / r.seconds;
/** Tasks and events per verification, as numbers and as text. */
const counted = async (ids: string[], per: number) => {
  const c: TaskCounts = await countTasks(h.client, ids);
  return { tasks: c.tasks / per, events: c.events / per, text: perUnit(c, per) };
};

try {
  log(
    `verification benchmark (${profile}): ${rounds} rounds of ${total} verifications each side, ${concurrency} at a time (warm-up ${Math.min(P.warmUp, total)} each first)`,
  );
  await baselineRun(Math.min(P.warmUp, total));
  await relayflowRun(Math.min(P.warmUp, total));
  const baseRuns: Samples[] = [];
  const rfRuns: Samples[] = [];
  // Alternating which side goes first, with a pause before each run: the server finishes the previous
  // run's background work (closing workflows, visibility) before the next is measured.
  const measureBaseline = async () => {
    await sleep(P.settleMs);
    baseRuns.push(await baselineRun(total));
  };
  const measureRelayflow = async (round: number) => {
    await sleep(P.settleMs);
    measuredSince ??= new Date();
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
    const rf = figures([rfRuns[round]!]);
    const base = figures([baseRuns[round]!]);
    log(
      `round ${round + 1}: throughput ratio ${(rf.perSecond / base.perSecond).toFixed(2)} (${rf.perSecond.toFixed(1)} /s vs ${base.perSecond.toFixed(1)} /s); p50 over the baseline: start ${(rf.start.p50 - base.start.p50).toFixed(0)} ms, report ${(rf.answer.p50 - base.answer.p50).toFixed(0)} ms`,
    );
  }
  const base = figures(baseRuns);
  const rf = figures(rfRuns);
  const row = (name: string, f: RunFigures) =>
    `${name.padEnd(10)} ${f.perSecond.toFixed(1).padStart(8)} /s   start p50 ${f.start.p50.toFixed(1).padStart(7)} ms  p99 ${f.start.p99.toFixed(1).padStart(7)} ms   report p50 ${f.answer.p50.toFixed(1).padStart(7)} ms  p99 ${f.answer.p99.toFixed(1).padStart(7)} ms`;
  log(row('baseline', base));
  log(row('relayflow', rf));
  const ratio = rf.perSecond / base.perSecond;
  const ratios = rfRuns.map((r, i) => perSecond(r) / perSecond(baseRuns[i]!));
  log(
    `throughput ratio relayflow/baseline, all rounds: ${ratio.toFixed(2)}; lowest round ${Math.min(...ratios).toFixed(2)} (target >= 0.70 in every round: ${ratios.every((x) => x >= 0.7) ? 'met' : 'NOT met'})`,
  );
  // Let the sampled processes take their last callbacks and close before counting.
  await sleep(2_000);
  const n = sampled.relayflow.length;
  const counts = {
    baseline: await counted(sampled.baseline, sampled.baseline.length),
    process: await counted(sampled.relayflow, n),
    // Whatever else the measured verifications started (a guard per number, when there were such workflows).
    others: await counted(await othersStartedSince(measuredSince!), rounds * total),
  };
  log(`per verification, from ${n} sampled: baseline ${counts.baseline.text}`);
  log(`                                relayflow process ${counts.process.text}`);
  log(`                                + other workflows the verifications started ${counts.others.text}`);
  log(
    `latency ratios relayflow/baseline: start p50 ${(rf.start.p50 / base.start.p50).toFixed(2)}, p99 ${(rf.start.p99 / base.start.p99).toFixed(2)}; report p50 ${(rf.answer.p50 / base.answer.p50).toFixed(2)}, p99 ${(rf.answer.p99 / base.answer.p99).toFixed(2)}`,
  );

  const perRound = (f: (r: RunFigures) => number) => ({ rf: rfRuns.map((r) => f(figures([r]))), base: baseRuns.map((r) => f(figures([r]))) });
  /** relayflow's p50 minus the baseline's per round (target: at most 50 ms), ratios baseline / relayflow (lower is better). */
  const overBaseline = (figure: string, p50: (r: RunFigures) => number): BenchRow => {
    const v = perRound(p50);
    return {
      figure,
      unit: 'ms',
      baseline: 'p50 of the bare workflow (update-with-start, then an update)',
      relayflow: v.rf.map((x, i) => x - v.base[i]!),
      baselineValues: v.base,
      ratios: v.rf.map((x, i) => v.base[i]! / x),
      target: { of: 'value', op: '<=', bound: 50 },
    };
  };
  const tp = perRound((r) => r.perSecond);
  emitBenchResult({
    bench: 'verification',
    target: server.target,
    rounds,
    rows: [
      {
        figure: 'verification start + report throughput',
        unit: '/s',
        baseline: 'a bare workflow started by update-with-start and answered by an update, same server and client',
        relayflow: tp.rf,
        baselineValues: tp.base,
        ratios,
        target: { of: 'ratio', op: '>=', bound: 0.7 },
      },
      overBaseline('verification start latency p50 over baseline', (r) => r.start.p50),
      overBaseline('verification report latency p50 over baseline', (r) => r.answer.p50),
    ],
    notes: [
      `${rounds} rounds of ${total} verifications, ${concurrency} at a time, a fresh number each`,
      embedded
        ? "npm start's topology: the store on PGlite and the sandbox in relayflow's process"
        : "a deployment's topology: the store on PostgreSQL, the sandbox (the platform) in a process of its own",
      `per verification (${n} sampled): process ${counts.process.tasks.toFixed(2)} workflow tasks / ${counts.process.events.toFixed(1)} events + other workflows the verifications started ${counts.others.tasks.toFixed(2)} / ${counts.others.events.toFixed(1)}; baseline ${counts.baseline.tasks.toFixed(2)} / ${counts.baseline.events.toFixed(1)}`,
    ],
  });
} finally {
  await shutdown([
    ['baseline worker', () => baseline.stop()],
    ['relayflow worker, API and sandbox', () => h.close()],
    [`Temporal server (${server.target})`, () => server.stop()],
    ['the platform (sandbox) and PostgreSQL', async () => (platform?.child.kill('SIGTERM'), await pg?.stop())],
  ]);
}
