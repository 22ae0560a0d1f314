// Worker CPU per process: what docs/capacity.md divides a core by. The worker runs in a process of its own
// (workers/main.ts, as deployed), so its CPU time (user + system, every thread: the workflow threads, the Temporal
// core, the activities) is not mixed with the API, the sandbox and the load, which run here. Each kind runs N
// processes to their end through the API; its figure is the worker's CPU over the run, minus the idle worker's CPU
// over the same time, divided by N. A watched template's figure is per wake-up (a poll of the platform), measured
// with the poll interval shortened so a window holds many. Not measured: campaigns (their chunks run on the send
// worker, which needs the shared PostgreSQL store; bench/campaign.ts reports its memory, not its CPU).
// Writes bench/results/worker-cpu.json (read by bench/capacity.ts) and prints a BENCH_JSON line.
//   npx tsx bench/worker-cpu.ts
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ulid } from 'ulid';
import { generateCodecKey } from '../common/codec.js';
import { freePort } from '../scripts/lib/dev-server.js';
import { TEST_API_KEY } from '../test/helpers/harness.js';
import { countActions } from './action-counts.js';
import { exitWhenDone, log, shutdown, sleep, startStack, workerProcessEnv } from './bench-stack.js';
import { emitBenchResult } from './result.js';
import { benchApi, processScenarios, untilClosed, wireScenarios } from './scenarios.js';
import { pool } from './stats.js';

/** A watched template wakes every RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS (5 minutes deployed); here often, to count many wakes. */
const POLL_MS = 5_000;
const N = { verification: 60, callout: 30, 'incoming call': 30, 'template approval': 40, onboarding: 4 };
const WATCH_SECONDS = 30;
const IDLE_SECONDS = 10;
const OUT = fileURLToPath(new URL('./results/worker-cpu.json', import.meta.url));

const taskQueue = `bench-worker-cpu-${ulid()}`;
const codecKeys = generateCodecKey('bench');
const stack = await startStack({
  withoutWorker: true,
  sandbox: { rateLimits: { perProjectPerSecond: 100_000 } },
  env: { RELAYFLOW_TASK_QUEUE: taskQueue, RELAYFLOW_CODEC_KEYS: codecKeys, RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: String(POLL_MS) },
});
const { server, h } = stack;
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** CPU ms (user + system, all threads) the process has used so far, from /proc (what process.cpuUsage() gives inside it). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

async function startWorker(): Promise<ChildProcess> {
  const metricsPort = await freePort();
  const child = fork(fileURLToPath(new URL('../workers/main.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...workerProcessEnv(stack, { taskQueue, codecKeys, apiKeys: TEST_API_KEY, metricsPort }),
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output = (output + d).slice(-4000)));
  child.stderr!.on('data', (d) => (output = (output + d).slice(-4000)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the worker exited (${child.exitCode}): ${output}`);
    if (Date.now() > deadline) throw new Error(`the worker did not start within 60 s: ${output}`);
    const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
      (r) => r.text(),
      () => '',
    );
    if (text.includes(`task_queue="${taskQueue}"`)) return child;
    await sleep(250);
  }
}

const api = benchApi(h);
const templateIds: string[] = [];
const scenarios = processScenarios(h, api, '+4674');
/** One process of each kind, run to its end (bench/scenarios.ts); an approved template keeps watching until stopped. */
const RUN: Record<keyof typeof N, () => Promise<void>> = {
  verification: async () => void (await scenarios.verification()),
  callout: async () => void (await scenarios.callout()),
  'incoming call': async () => void (await scenarios['incoming call']()),
  onboarding: async () => void (await scenarios.onboarding()),
  async 'template approval'() {
    templateIds.push((await scenarios['template approval']()).processId);
  },
};

interface KindFigure {
  processes: number;
  seconds: number;
  workerCpuMs: number;
  idleCpuMs: number;
  msPerProcess: number;
}
const kinds: Record<string, KindFigure> = {};
const notes: string[] = [];
let worker: ChildProcess | undefined;
let idleMsPerSecond = 0;
let watch:
  | {
      templates: number;
      seconds: number;
      polls: number;
      workerCpuMs: number;
      idleCpuMs: number;
      msPerWake: number;
      eventsPerWake: number;
      actionsPerWake: number;
    }
  | undefined;

/** Worker CPU over `work`, less the idle worker's over the same time. */
async function measured(work: () => Promise<number>): Promise<{ seconds: number; workerCpuMs: number; idleCpuMs: number; units: number }> {
  const c0 = cpuMs(worker!.pid!);
  const t0 = Date.now();
  const units = await work();
  const seconds = (Date.now() - t0) / 1000;
  return { seconds, workerCpuMs: cpuMs(worker!.pid!) - c0, idleCpuMs: idleMsPerSecond * seconds, units };
}

async function historyTotals(ids: string[]): Promise<{ events: number; actions: number; polls: number }> {
  let events = 0;
  let actions = 0;
  let polls = 0;
  for (const id of ids) {
    const c = await countActions(h.client, id);
    events += c.events;
    actions += c.total;
    polls += ((await api('GET', `/v1/processes/${encodeURIComponent(id)}`)).json.details as { polls: number }).polls;
  }
  return { events, actions, polls };
}

try {
  await wireScenarios(h, api);

  log('starting the worker process');
  worker = await startWorker();
  await sleep(3_000); // its pollers settle
  const idle = await measured(async () => (await sleep(IDLE_SECONDS * 1000), 0));
  idleMsPerSecond = idle.workerCpuMs / idle.seconds;
  log(`idle worker: ${idleMsPerSecond.toFixed(1)} CPU ms/s`);

  // A warm-up of each kind, so the first's module loading and JIT are not in a figure.
  for (const run of Object.values(RUN)) if (run !== RUN.onboarding) await run();
  for (const id of templateIds.splice(0)) {
    await api('POST', `/v1/templates/${encodeURIComponent(id)}/stop`, {});
    await untilClosed(h, id, 30_000);
  }

  for (const [kind, n] of Object.entries(N) as [keyof typeof N, number][]) {
    const m = await measured(async () => (await pool(n, kind === 'onboarding' ? 2 : 10, () => RUN[kind]()), n));
    const msPerProcess = (m.workerCpuMs - m.idleCpuMs) / n;
    kinds[kind] = { processes: n, seconds: m.seconds, workerCpuMs: m.workerCpuMs, idleCpuMs: m.idleCpuMs, msPerProcess };
    log(
      `${kind}: ${n} in ${m.seconds.toFixed(1)} s, worker ${m.workerCpuMs.toFixed(0)} CPU ms (idle ${m.idleCpuMs.toFixed(0)}): ${msPerProcess.toFixed(1)} ms each`,
    );
    if (kind === 'template approval') {
      // The approved templates now keep watching: their wake-ups in a window, then they are stopped.
      const before = await historyTotals(templateIds);
      const w = await measured(async () => (await sleep(WATCH_SECONDS * 1000), 0));
      const after = await historyTotals(templateIds);
      const polls = after.polls - before.polls;
      watch = {
        templates: templateIds.length,
        seconds: w.seconds,
        polls,
        workerCpuMs: w.workerCpuMs,
        idleCpuMs: w.idleCpuMs,
        msPerWake: (w.workerCpuMs - w.idleCpuMs) / polls,
        eventsPerWake: (after.events - before.events) / polls,
        actionsPerWake: (after.actions - before.actions) / polls,
      };
      log(`template watch: ${polls} wakes of ${templateIds.length} templates in ${w.seconds.toFixed(1)} s: ${watch.msPerWake.toFixed(1)} ms each`);
      await pool(templateIds.length, 10, async (i) => {
        await api('POST', `/v1/templates/${encodeURIComponent(templateIds[i]!)}/stop`, {});
        await untilClosed(h, templateIds[i]!, 30_000);
      });
    }
  }
  notes.push(
    `worker in its own process (workers/main.ts), CPU from /proc/<pid>/stat (user + system, all threads); idle worker ${idleMsPerSecond.toFixed(1)} CPU ms/s over ${IDLE_SECONDS} s, subtracted for each run's duration`,
    `each kind after one warm-up process; concurrency 10 (onboarding 2); onboardings' templates poll every ${POLL_MS / 1000} s after approval and are counted in the onboarding's figure until it closes`,
    `template watch: ${watch!.templates} approved templates over ${WATCH_SECONDS} s, poll interval ${POLL_MS / 1000} s (deployed: 300 s); events and actions per wake from their histories`,
  );
} finally {
  await shutdown([
    ['worker process', () => (worker && worker.exitCode === null ? (worker.kill('SIGTERM'), new Promise((r) => worker!.once('exit', r))) : undefined)],
    ['API and sandbox', () => h.close()],
    ['Temporal dev server', () => server.stop()],
  ]);
}

const commit = execFileSync('git', ['rev-parse', '--short=10', 'HEAD'], { encoding: 'utf8' }).trim();
const result = {
  measuredAt: new Date().toISOString(),
  machine: { cpus: `${cpus().length} × ${cpus()[0]?.model.trim() ?? '?'}`, node: process.version, commit },
  idleMsPerSecond,
  kinds,
  templateWatch: watch!,
  notes,
};
writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
log(`wrote ${OUT}`);
emitBenchResult({
  bench: 'worker-cpu',
  rounds: 1,
  rows: [
    ...Object.entries(kinds).map(([kind, k]) => ({
      figure: `worker CPU per ${kind}`,
      unit: 'ms',
      baseline: 'the idle worker over the same time (subtracted)',
      relayflow: [k.msPerProcess],
      baselineValues: [k.idleCpuMs / k.processes],
      ratios: [],
    })),
    {
      figure: 'worker CPU per template watch wake-up',
      unit: 'ms',
      baseline: 'the idle worker over the same time (subtracted)',
      relayflow: [watch!.msPerWake],
      baselineValues: [],
      ratios: [],
    },
  ],
  notes,
});
exitWhenDone();
