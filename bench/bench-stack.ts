// What the webhook-intake, memory and actions benchmarks share: the profile they run (RELAYFLOW_BENCH_PROFILE=
// short|full), a timed log, and the stack they measure (a Temporal server of RELAYFLOW_BENCH_TARGET, bench/target.ts,
// the workflow bundle, the sandbox, a worker and the API in this process) with a shutdown that cannot hang the command.
import { NativeConnection, Worker } from '@temporalio/worker';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ulid } from 'ulid';
import { createDataConverter } from '../common/data-converter.js';
import { cachedWorkflowBundle, CHECKOUT_BUNDLE_CACHE } from '../workers/bundle-cache.js';
import { startHarness, type Harness, type HarnessOptions } from '../test/helpers/harness.js';
import { benchTarget, startBenchTemporal, type BenchTemporal } from './target.js';

export type BenchProfile = 'short' | 'full';

/** RELAYFLOW_BENCH_PROFILE: `short` (the CI alarm: at most 40 s with the start) or `full` (default, at most 4 min). */
export function benchProfile(): BenchProfile {
  const p = (process.env.RELAYFLOW_BENCH_PROFILE ?? 'full').trim();
  if (p !== 'short' && p !== 'full') throw new Error(`RELAYFLOW_BENCH_PROFILE must be short or full (got "${p}")`);
  return p;
}

const t00 = Date.now();
/** A progress line with the seconds since the start. */
export const log = (m: string) => process.stdout.write(`[${((Date.now() - t00) / 1000).toFixed(1).padStart(5)}s] ${m}\n`);
export const elapsedSeconds = () => (Date.now() - t00) / 1000;
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Stack {
  server: BenchTemporal;
  h: Harness;
}

/** The Temporal server, the bundle (the path the other benchmarks build too) and the harness (sandbox, worker unless told, API). */
export async function startStack(harness: HarnessOptions = {}): Promise<Stack> {
  // The bundle does not need the server: both at once.
  log(`starting the Temporal server (target ${benchTarget()}) and building the workflow bundle (or reusing it: workers/bundle-cache.ts)`);
  const bundle = cachedWorkflowBundle(CHECKOUT_BUNDLE_CACHE);
  bundle.catch(() => undefined); // awaited below; a server that fails first must not leave it unhandled
  const server = await startBenchTemporal({ log });
  log(`target: ${server.describe}`);
  process.env.TEMPORAL_ADDRESS = server.address;
  try {
    const b = await bundle;
    process.env.RELAYFLOW_WORKFLOW_BUNDLE = b.path;
    log(`workflow bundle ${b.reused ? 'reused (workflow code unchanged)' : 'built'}`);
    log(`starting the sandbox${harness.withoutWorker ? '' : ', a worker'} and the API`);
    const h = await startHarness(harness);
    return { server, h };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/**
 * The environment of a relayflow worker a bench runs as its own process (memory, worker CPU): on the stack's server
 * and sandbox, without the shared database (no send worker) or a public URL (the harness wired the callbacks).
 */
export function workerProcessEnv(
  { server, h }: Stack,
  w: { taskQueue: string; codecKeys: string; apiKeys: string; metricsPort: number },
): Record<string, string | undefined> {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'RELAYFLOW_DATABASE_URL' && k !== 'RELAYFLOW_PUBLIC_URL')),
    TEMPORAL_ADDRESS: server.address,
    RELAYFLOW_TASK_QUEUE: w.taskQueue,
    RELAYFLOW_CODEC_KEYS: w.codecKeys,
    RELAYFLOW_API_KEYS: w.apiKeys,
    PLATFORM_SANDBOX_URL: h.sandbox.url,
    RELAYFLOW_WORKER_METRICS_PORT: String(w.metricsPort),
    RELAYFLOW_LOG_LEVEL: 'warn',
  };
}

export interface BaselineWorker {
  taskQueue: string;
  stop(): Promise<void>;
}

/**
 * A bare worker for a benchmark's baseline workflows (`workflowsPath`), on the stack's server and with relayflow's
 * codec, so the baseline pays for encryption too. It lives through the warm-up and the measured runs, like relayflow's.
 */
export async function startBaselineWorker({ server, h }: Stack, workflowsPath: URL): Promise<BaselineWorker> {
  const taskQueue = `bench-baseline-${ulid()}`;
  const connection = await NativeConnection.connect({ address: server.address });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: fileURLToPath(workflowsPath),
    dataConverter: createDataConverter(h.config.codecKeys),
  });
  const running = worker.run();
  return {
    taskQueue,
    stop: async () => {
      worker.shutdown();
      await running;
      await connection.close(); // an open connection would keep the process alive
    },
  };
}

/**
 * Stops what the benchmark started, in order, each step logged; past `deadlineMs` the process exits (the figures
 * are out by then: a shutdown that hangs must not keep the command running).
 */
export async function shutdown(steps: Array<[string, () => Promise<unknown> | unknown]>, deadlineMs = 60_000): Promise<void> {
  setTimeout(() => {
    log(`shutdown took over ${deadlineMs / 1000} s; exiting anyway`);
    process.exit(1);
  }, deadlineMs).unref();
  for (const [what, step] of steps) {
    log(`stopping: ${what}`);
    try {
      await step();
    } catch (err) {
      log(`  ${what} did not stop cleanly: ${(err as Error).message}`);
    }
  }
  log('stopped');
}

/**
 * Call after the result is out: a handle left open (seen after the memory benchmark's worker process had exited)
 * must not keep the command running until the shutdown deadline. Says what was still open, then exits.
 */
export function exitWhenDone(): void {
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((r) => r !== 'Timeout');
    log(`still open 2 s after the result: ${open.join(', ') || 'nothing'}; exiting`);
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  }, 2_000).unref();
}

/** Starts `node --import tsx <args>` and waits for `ready` on its standard output. */
export function startChild(args: string[], childEnv: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...childEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const match = ready.exec(out);
      if (match) resolve({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited early (${code})`)));
  });
}
