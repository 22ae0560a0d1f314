// Memory benchmark: a relayflow worker's memory per waiting process. The worker runs in a process of its own
// (bench/memory-worker.ts around workers/main.ts, as a deployment runs it), so its memory is not mixed with the
// API, the sandbox and the load, which run here. Each round: a fresh worker, measured idle (after a full GC), then
// with N provisioning processes waiting in its sticky cache (CHATA/CHATB templates, RCS/CHATA/CHATB senders and
// sender ID registrations in turn, each waiting for a review an hour away), measured again after a full GC.
// Row: (loaded - idle) / N in MB (10^6 bytes) of resident memory, against the idle worker; target <= 1 MB.
//   RELAYFLOW_BENCH_PROFILE=short|full npx tsx bench/memory.ts
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ulid } from 'ulid';
import { generateCodecKey } from '../common/codec.js';
import { freePort } from '../scripts/lib/dev-server.js';
import { TEST_API_KEY } from '../test/helpers/harness.js';
import { benchProfile, exitWhenDone, log, shutdown, sleep, startStack, workerProcessEnv } from './bench-stack.js';
import { emitBenchResult } from './result.js';
import { pool } from './stats.js';
import { holdSenderIdReviews, PROVISIONING_KINDS, SENDER_ID_KIND, waitingHarness, type WaitingKind } from './waiting-processes.js';

const profile = benchProfile();
// Not 2,000 here: this worker takes in about 11 new workflows a second on this machine and holds about 1.7 MB of
// resident memory for each (measured: 300 processes and their 250 inboxes took 49 s and 1.03 GB), so 2,000 processes
// and their 1,670 inboxes would take over 5 minutes and about 6 GB per round, past the table's 4 minutes. Memory grows
// by about the same per process at 60, 240 and 300 (compare the profiles); the notes say how many were loaded.
const P = profile === 'short' ? { processes: 60, rounds: 1 } : { processes: 240, rounds: 2 };
const MB = 1e6;
/**
 * The worker's sticky cache: RELAYFLOW_WORKER_CACHED_WORKFLOWS, 200 by default (common/config.ts), fewer than the
 * processes and inboxes measured here; the benchmark's worker gets room for all of them (a deployment that keeps
 * more processes waiting in memory sets the same), so each is measured cached and not evicted.
 */
const CACHE = P.processes * 2 + 100;
const KINDS: WaitingKind[] = [...PROVISIONING_KINDS, SENDER_ID_KIND];

const taskQueue = `bench-memory-${ulid()}`;
const codecKeys = generateCodecKey('bench');
const stack = await startStack({
  ...waitingHarness,
  withoutWorker: true,
  env: { ...waitingHarness.env, RELAYFLOW_TASK_QUEUE: taskQueue, RELAYFLOW_CODEC_KEYS: codecKeys },
});
const { server, h } = stack;
await holdSenderIdReviews(h.sandbox.url);

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  gc: boolean;
}

class WorkerProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly metricsUrl: string,
  ) {}

  static async start(): Promise<WorkerProcess> {
    const metricsPort = await freePort();
    const child = fork(fileURLToPath(new URL('./memory-worker.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx', '--expose-gc'],
      env: {
        ...workerProcessEnv(stack, { taskQueue, codecKeys, apiKeys: TEST_API_KEY, metricsPort }),
        RELAYFLOW_WORKER_CACHED_WORKFLOWS: String(CACHE),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    child.stdout!.on('data', (d) => (output = (output + d).slice(-4000)));
    child.stderr!.on('data', (d) => (output = (output + d).slice(-4000)));
    const w = new WorkerProcess(child, `http://127.0.0.1:${metricsPort}/metrics`);
    // Ready when its /metrics answers with the worker's task slots (the worker polls by then).
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the worker exited (${child.exitCode}): ${output}`);
      if (Date.now() > deadline) throw new Error(`the worker did not start within 60 s: ${output}`);
      const text = await w.metrics().catch(() => '');
      if (text.includes(`task_queue="${taskQueue}"`)) return w;
      await sleep(250);
    }
  }

  metrics(): Promise<string> {
    return fetch(this.metricsUrl).then((r) => r.text());
  }

  /** The worker's sticky cache size (workflows held), from its /metrics. */
  async cached(): Promise<number> {
    const line = (await this.metrics()).split('\n').find((l) => /^(temporal_)?sticky_cache_size(\{[^}]*\})?\s/.test(l));
    return line ? Number(line.trim().split(/\s+/).at(-1)) : 0; // the gauge appears with the first cached workflow
  }

  measure(): Promise<Memory> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the worker did not answer `measure` within 30 s')), 30_000);
      this.child.once('message', (m) => {
        clearTimeout(timer);
        resolve(m as Memory);
      });
      this.child.send('measure');
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.kill('SIGTERM'); // the runtime drains and stops the worker
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(kill);
  }
}

/** Starts `n` processes through the API (the kinds in turn); their IDs. */
async function startProcesses(n: number): Promise<{ ids: string[]; byKind: Record<string, number> }> {
  const ids: string[] = [];
  const byKind: Record<string, number> = {};
  let lastLog = Date.now();
  await pool(n, 20, async (i) => {
    const kind = KINDS[i % KINDS.length]!;
    const res = await h.api({ method: 'POST', url: kind.route, payload: kind.body() });
    if (res.statusCode !== 202) throw new Error(`${kind.route}: ${res.statusCode} ${res.body}`);
    ids.push(res.json<{ processId: string }>().processId);
    byKind[kind.name] = (byKind[kind.name] ?? 0) + 1;
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`  ${ids.length} started`);
    }
  });
  return { ids, byKind };
}

/** Waits until the worker's cache holds `expected` workflows and stops growing. */
async function settleCache(w: WorkerProcess, expected: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let stableSince = Date.now();
  for (;;) {
    const now = await w.cached();
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    }
    if ((now >= expected && Date.now() - stableSince >= 2_000) || Date.now() > deadline) return now;
    await sleep(500);
  }
}

/** How many of a sample of the processes are waiting (a state that is neither the first nor an ending). */
async function sampleWaiting(ids: string[], n: number): Promise<{ waiting: number; states: Record<string, number> }> {
  const states: Record<string, number> = {};
  let waiting = 0;
  const sample = ids.filter((_, i) => i % Math.max(1, Math.floor(ids.length / n)) === 0).slice(0, n);
  await pool(sample.length, 10, async (i) => {
    const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(sample[i]!)}` });
    const v =
      res.statusCode === 200 ? res.json<{ state: string; execution: { status: string } }>() : { state: `HTTP ${res.statusCode}`, execution: { status: '?' } };
    states[v.state] = (states[v.state] ?? 0) + 1;
    if (v.execution.status === 'RUNNING' && !['CREATING', 'STARTING'].includes(v.state)) waiting += 1;
  });
  return { waiting, states };
}

const fmt = (m: Memory) =>
  `RSS ${(m.rss / MB).toFixed(1)} MB, heap used ${(m.heapUsed / MB).toFixed(1)} MB (of ${(m.heapTotal / MB).toFixed(1)}), external ${(m.external / MB).toFixed(1)} MB`;
const perProcess: number[] = [];
const idleMb: number[] = [];
const notes: string[] = [];
let worker: WorkerProcess | undefined;
try {
  log(
    `${profile} profile: ${P.rounds} round(s), each a fresh worker process measured idle and with ${P.processes} processes waiting (${KINDS.map((k) => k.name).join(', ')} in turn)`,
  );
  for (let round = 0; round < P.rounds; round++) {
    log(`round ${round + 1} of ${P.rounds}: starting a worker process`);
    worker = await WorkerProcess.start();
    await sleep(2_000); // its pollers and first allocations settle
    const idle = await worker.measure();
    if (!idle.gc) throw new Error('the worker has no gc(): --expose-gc did not reach it');
    const cachedBefore = await worker.cached();
    log(`  idle: ${fmt(idle)}; ${cachedBefore} workflows cached`);
    const t0 = Date.now();
    const started = await startProcesses(P.processes);
    log(
      `  ${P.processes} started through the API in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${Object.entries(started.byKind)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ')}`,
    );
    // Each template and sender process has its resource's inbox beside it (a workflow of its own, cached too).
    const withInbox = KINDS.filter((k) => k.resource).reduce((s, k) => s + (started.byKind[k.name] ?? 0), 0);
    const expected = cachedBefore + P.processes + withInbox;
    if (expected > CACHE) throw new Error(`${expected} workflows would not fit the worker's cache (${CACHE})`);
    const cached = await settleCache(worker, expected, 75_000);
    const sample = await sampleWaiting(started.ids, 50);
    log(
      `  cache: ${cached} workflows (expected ${expected}: ${P.processes} processes + ${withInbox} inboxes); sample of ${Object.values(sample.states).reduce((a, b) => a + b, 0)}: ${sample.waiting} waiting (${Object.entries(
        sample.states,
      )
        .map(([s, n]) => `${n} ${s}`)
        .join(', ')})`,
    );
    const loaded = await worker.measure();
    const value = (loaded.rss - idle.rss) / MB / P.processes;
    log(`  loaded: ${fmt(loaded)}`);
    log(`  per waiting process: RSS ${value.toFixed(3)} MB, heap used ${((loaded.heapUsed - idle.heapUsed) / MB / P.processes).toFixed(3)} MB`);
    perProcess.push(value);
    idleMb.push(idle.rss / MB);
    notes.push(
      `round ${round + 1}: idle RSS ${(idle.rss / MB).toFixed(1)} MB, heap used ${(idle.heapUsed / MB).toFixed(1)} MB; with ${P.processes} waiting: RSS ${(loaded.rss / MB).toFixed(1)} MB, heap used ${(loaded.heapUsed / MB).toFixed(1)} MB (${((loaded.heapUsed - idle.heapUsed) / MB / P.processes).toFixed(3)} MB heap per process); sticky cache ${cached} of ${expected} expected; ${sample.waiting} of ${Object.values(sample.states).reduce((a, b) => a + b, 0)} sampled waiting`,
    );
    if (cached < expected)
      notes.push(`round ${round + 1}: the cache held ${cached}, fewer than the ${expected} expected: some processes were not in memory when measured`);
    await worker.stop();
    worker = undefined;
  }
  notes.unshift(
    `${profile} profile: ${P.processes} processes per round (not 2,000: loading them would take over 5 minutes and about 6 GB on this machine), ${KINDS.map((k) => k.name).join(', ')} in turn, each waiting for a review an hour away; each template and sender process also has its resource's inbox cached (counted in the figure)`,
    `the worker runs in its own process (workers/main.ts through tsx, with --expose-gc and RELAYFLOW_WORKER_CACHED_WORKFLOWS=${CACHE}: the default, 200, would evict most of them); memory is RSS after two full GCs of the main thread (the workflows live in the SDK's workflow threads, which that GC does not reach), MB = 10^6 bytes`,
  );
} finally {
  await shutdown([
    ...(worker ? [['worker process', () => worker!.stop()] as [string, () => Promise<void>]] : []),
    ['API and sandbox', () => h.close()],
    [`Temporal server (${server.target})`, () => server.stop()],
  ]);
}

emitBenchResult({
  bench: 'memory',
  target: server.target,
  rounds: P.rounds,
  rows: [
    {
      figure: 'worker memory per waiting process',
      unit: 'MB',
      baseline: 'an idle worker (RSS, MB)',
      relayflow: perProcess,
      baselineValues: idleMb,
      // The idle worker is what the figure is measured from, not a rival: the row is judged by its value.
      ratios: [],
      target: { of: 'value', op: '<=', bound: 1 },
    },
  ],
  notes,
});
exitWhenDone();
