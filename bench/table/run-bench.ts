// Runs one bench as a child process in a process group of its own, streams its output with a `[name] `
// prefix, and takes its result from the `BENCH_JSON {...}` line. Never hangs: past its bound the bench's
// processes are killed and it is reported as timed out; a bench that has printed its result but does not
// exit is given a short grace and then killed, keeping the result.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BENCH_JSON_PREFIX, type BenchResult } from '../result.js';
import type { BenchOutcome } from './outcome.js';
import { killTree } from '../../scripts/lib/process-tree.js';

export interface BenchRun {
  name: string;
  command: string[];
  boundMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How long a bench may take to exit after printing its result. */
  exitGraceMs?: number;
  write?: (line: string) => void;
}

/** The running bench's PID, so an interrupted runner can stop it too. */
export const running = new Set<number>();

function parseResult(line: string): BenchResult | string {
  try {
    const r = JSON.parse(line.slice(BENCH_JSON_PREFIX.length)) as BenchResult;
    if (typeof r?.bench !== 'string' || !Array.isArray(r.rows)) return 'BENCH_JSON line without bench and rows';
    return r;
  } catch (err) {
    return `BENCH_JSON line is not JSON (${(err as Error).message})`;
  }
}

export async function runBench(opts: BenchRun): Promise<BenchOutcome> {
  const write = opts.write ?? ((l: string) => process.stdout.write(`${l}\n`));
  const t0 = Date.now();
  const child = spawn(opts.command[0]!, opts.command.slice(1), { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let result: BenchResult | undefined;
  let bad: string | undefined;
  let timedOut = false;
  let killing: Promise<void> | undefined;
  const stop = () => {
    if (child.pid && !killing) killing = killTree(child.pid);
  };
  // 'exit' gives the code; 'close' comes once the output pipes are closed too, which a process the bench left
  // behind can hold open: it gets 2 s, then the bench's remaining processes are stopped.
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (err) => ((bad = err.message), resolve(null)));
    child.once('exit', (code) => resolve(code));
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  if (child.pid) running.add(child.pid);
  let timer = setTimeout(() => ((timedOut = true), stop()), opts.boundMs);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      if (!line.startsWith(BENCH_JSON_PREFIX)) return write(`[${opts.name}] ${line}`);
      const parsed = parseResult(line);
      if (typeof parsed === 'string') return void (bad = parsed);
      result = parsed;
      write(`[${opts.name}] BENCH_JSON: ${parsed.rows.length} rows, ${parsed.rounds} rounds`);
      clearTimeout(timer);
      timer = setTimeout(stop, opts.exitGraceMs ?? 10_000);
    });
  }
  const exitCode = await exited;
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
  clearTimeout(timer);
  const leftBehind = await Promise.race([closed.then(() => false), sleep(2_000).then(() => true)]);
  if (leftBehind) stop();
  await killing;
  await Promise.race([closed, sleep(5_000).then(() => (child.stdout.destroy(), child.stderr.destroy()))]);
  if (child.pid) running.delete(child.pid);
  const seconds = (Date.now() - t0) / 1000;
  const base = { bench: opts.name, seconds, exitCode };
  if (result) {
    const detail =
      exitCode === 0 ? undefined : exitCode === null ? 'killed: it did not exit after its result' : `exited with code ${exitCode} after its result`;
    return { ...base, status: 'ok', result, ...(detail ? { detail } : {}) };
  }
  if (timedOut) return { ...base, status: 'timed out', detail: `bound ${Math.round(opts.boundMs / 1000)} s` };
  return { ...base, status: 'no result', detail: bad ?? `exited with code ${exitCode} without a BENCH_JSON line` };
}
