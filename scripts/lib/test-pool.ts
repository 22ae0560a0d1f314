// Runs test files side by side: each job is one process (a batch of files run one after another in it, or a
// file that needs a process of its own under `node --test`), at most `concurrency` at a time, the longest
// expected first (so the slowest file starts at once instead of ending the run alone). A job's output is printed
// whole when it ends, never interleaved.
// Expected times come from the last run on this machine (kept in the cache, outside the repo).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { killTree } from './process-tree.js';

/** What scripts/lib/test-tally-reporter.mjs writes at the end of a run. */
interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  /** Wall time per file, ms (absolute paths). */
  files: Record<string, number>;
  /** CPU (user + system) of the job's processes, ms. */
  cpuMs?: number;
}

export interface Job {
  label: string;
  files: string[];
  /** All files in one process (scripts/lib/test-in-process.ts) instead of node --test's process per file. */
  inProcess?: boolean;
  /** node:test's own --test-concurrency inside the job. */
  fileConcurrency: number;
  expectedMs: number;
}

export interface PoolResult extends Tally {
  /** Jobs that ended without a tally (killed at their deadline, or crashed before reporting). */
  broken: string[];
  /** CPU of every job, ms: in all, and per job label. */
  cpuMs: number;
  jobCpuMs: Record<string, number>;
}

const REPORTER = resolve('scripts/lib/test-tally-reporter.mjs');
const IN_PROCESS = 'scripts/lib/test-in-process.ts';
/**
 * Compiled files' stack traces in TypeScript lines, on request: with source maps on, every stack trace (the Temporal
 * SDK takes one for each workflow promise it tracks) is mapped, and the replay of every fixture with the interceptor
 * sets cost 24 s of CPU instead of 17 s (about 1 s more for any file starting a harness).
 */
const SOURCE_MAPS = process.env.RELAYFLOW_TEST_SOURCE_MAPS ? ['--enable-source-maps'] : [];

/**
 * The folders of heavy files: they start relayflow's API or workers against the Temporal server, or whole
 * deployments (test/api, test/workflows: Temporal; test/e2e, test/faults: processes). Every other file is light.
 */
const HEAVY_DIRS = ['test/api/', 'test/workflows/', 'test/e2e/', 'test/faults/'];
/**
 * A file elsewhere that starts a whole relayflow (test/helpers/harness.ts) is heavy too: in a unit batch it ran through
 * tsx and stretched the batch, one file after another, by its waits on the Temporal server.
 */
const STARTS_HARNESS = /from '(\.\.\/)+helpers\/harness\.js'/;
const knownHeavy = new Map<string, boolean>();
const isHeavy = (file: string) => {
  let is = knownHeavy.get(file);
  if (is === undefined) knownHeavy.set(file, (is = HEAVY_DIRS.some((dir) => file.startsWith(dir)) || STARTS_HARNESS.test(readFileSync(file, 'utf8'))));
  return is;
};

/** Expected time of a file before this machine has run it: by how heavy its directory's files tend to be. */
function guessMs(file: string): number {
  if (file.startsWith('test/faults/')) return 150_000;
  if (file.startsWith('test/e2e/')) return 60_000;
  if (file.startsWith('test/workflows/')) return 20_000;
  if (file.startsWith('test/api/')) return 10_000;
  return 2_000;
}

function readTimes(path: string | undefined): Record<string, number> {
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/**
 * Each file's expected time: this machine's last measure, else the checked-in one (`baseline`, measured on the
 * reference two-core machine), else a guess by directory. Guesses alone planned a fresh machine's first `npm test`
 * into batches that ended 80 s after the rest.
 */
export class TestTimes {
  private readonly times: Record<string, number>;
  private readonly baseline: Record<string, number>;
  constructor(
    private readonly path: string,
    baselinePath?: string,
  ) {
    this.times = readTimes(path);
    this.baseline = readTimes(baselinePath);
  }

  expected(file: string): number {
    return this.times[file] ?? this.baseline[file] ?? guessMs(file);
  }

  /** Every file's time this machine has measured (to check in as the baseline). */
  measured(): Record<string, number> {
    return { ...this.times };
  }

  /** `scale` takes the times back to a machine the run had to itself (scripts/lib/test-load.ts). */
  save(measured: Record<string, number>, scale = 1): void {
    for (const [file, ms] of Object.entries(measured)) this.times[file] = Math.round(ms * scale);
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.path, JSON.stringify(this.times, null, 1));
  }
}

/** node:test runs top-level before/after hooks of files loaded into one process at the wrong time. */
const TOP_LEVEL_HOOK = /^(before|after|beforeEach|afterEach)\(/m;
const hasTopLevelHooks = (file: string) => TOP_LEVEL_HOOK.test(readFileSync(file, 'utf8'));

/**
 * What keeps a heavy file out of a shared process: top-level hooks; installing the process's Temporal runtime
 * itself; reading the runtime's own log lines (flushRuntimeLogs: the runtime logs through the logger of the harness
 * that installed it, the process's first, and one a file before left running is another file's); a change to the
 * environment.
 */
const OWN_PROCESS = [TOP_LEVEL_HOOK, /installRuntime\(/, /flushRuntimeLogs\(/, /process\.env(\.\w+|\[[^\]]+\])\s*=[^=]/];
const needsOwnProcess = (file: string) => {
  const text = readFileSync(file, 'utf8');
  return OWN_PROCESS.some((re) => re.test(text));
};

/**
 * Heavy files share a process in batches of about this much expected time, one file after another: each file
 * after the first saves loading relayflow's modules and warming its code (about 4 s of CPU of the 6 s a file with
 * one harness costs). Expected times are the files' own tests, measured in such batches; a batch takes longer
 * (its imports, contention), and the run's end waits for its longest jobs: 120 s batches ran up to 190 s; 90 s
 * made 25 jobs where 60 s made 32, each process fewer about 4 s of CPU. Most of a heavy file's time is waiting: with
 * three jobs a core (scripts/test.ts), 120 s batches.
 */
const HEAVY_BATCH_MS = 120_000;
/**
 * A whole run's heavy files make at least this many batches' worth: expected times from a loaded machine are all
 * longer, and would otherwise cut the same files into more batches (59 jobs instead of 32, each paying a process's
 * start again); the bound grows with the total instead.
 */
const HEAVY_BATCHES = 20;

/**
 * Heavy files (isHeavy) run in batches of up to HEAVY_BATCH_MS expected (more when HEAVY_BATCHES would not hold
 * them), each in one process, or alone (those that need their own process, and any longer than a batch) under
 * node --test. The light ones (unit files) run
 * in `unitJobs` batches of about equal expected time, each batch in one process; the few with top-level hooks
 * in a batch of their own under node --test.
 */
export function planJobs(files: string[], times: TestTimes, unitJobs: number): Job[] {
  const unit = files.filter((f) => !isHeavy(f)).sort((a, b) => times.expected(b) - times.expected(a));
  const isolated = unit.filter(hasTopLevelHooks);
  const shared = unit.filter((f) => !isolated.includes(f));
  const batches: Job[] = Array.from({ length: Math.min(unitJobs, shared.length) }, (_, i) => ({
    label: `unit tests (batch ${i + 1})`,
    files: [],
    inProcess: true,
    fileConcurrency: 1,
    expectedMs: 0,
  }));
  for (const f of shared) {
    const lightest = batches.reduce((a, b) => (b.expectedMs < a.expectedMs ? b : a));
    lightest.files.push(f);
    lightest.expectedMs += times.expected(f);
  }
  if (isolated.length) {
    batches.push({
      label: 'unit tests (own processes)',
      files: isolated,
      fileConcurrency: 1,
      expectedMs: isolated.reduce((sum, f) => sum + times.expected(f), 0),
    });
  }
  // First fit, the longest first: few batches, each under the bound.
  const heavy: Job[] = [];
  const heavyFiles = files.filter(isHeavy).sort((a, b) => times.expected(b) - times.expected(a));
  const bound = Math.max(HEAVY_BATCH_MS, heavyFiles.reduce((sum, f) => sum + times.expected(f), 0) / HEAVY_BATCHES);
  for (const f of heavyFiles) {
    const ms = times.expected(f);
    const fit = needsOwnProcess(f) ? undefined : heavy.find((j) => j.inProcess !== false && j.expectedMs + ms <= bound);
    if (fit) {
      fit.files.push(f);
      fit.expectedMs += ms;
    } else heavy.push({ label: f, files: [f], ...(needsOwnProcess(f) ? { inProcess: false } : {}), fileConcurrency: 1, expectedMs: ms });
  }
  for (const job of heavy) {
    // One file alone keeps node --test's process of its own.
    job.inProcess = job.files.length > 1;
    if (job.inProcess) job.label = `${job.files.length} files in one process (${job.files.join(', ')})`;
  }
  // The unit batches first: each holds a share of a hundred-odd unit files run one after another, the longest jobs of
  // a whole run, and their expected times are often short (saved by runs of a few of their files, scaled down
  // on a busy machine); started late, one ended the run alone.
  return [...batches, ...heavy.sort((a, b) => b.expectedMs - a.expectedMs)];
}

export interface PoolOptions {
  concurrency: number;
  /** Where scripts/lib/test-compile.ts put the compiled code: heavy files run from there, without tsx. */
  compiledDir?: string;
  env: NodeJS.ProcessEnv;
  /** A job still running after this long is killed and counted as failed. */
  jobDeadlineMs: number;
  workDir: string;
  log: (msg: string) => void;
}

export async function runPool(jobs: Job[], opts: PoolOptions): Promise<PoolResult> {
  mkdirSync(opts.workDir, { recursive: true });
  const total: PoolResult = { passed: 0, failed: 0, skipped: 0, files: {}, broken: [], cpuMs: 0, jobCpuMs: {} };
  const queue = [...jobs];
  let index = 0;
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const tallyFile = join(opts.workDir, `${index++}.json`);
      const { tally, broken } = await runJob(job, tallyFile, opts);
      if (broken) {
        total.broken.push(job.label);
        total.failed += 1;
      }
      if (!tally) continue;
      total.passed += tally.passed;
      total.failed += tally.failed;
      total.skipped += tally.skipped;
      total.cpuMs += tally.cpuMs ?? 0;
      total.jobCpuMs[job.label] = tally.cpuMs ?? 0;
      // Times by source file, wherever the file ran from.
      for (const [file, ms] of Object.entries(tally.files)) total.files[sourceOf(file, opts.compiledDir)] = ms;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return total;
}

function sourceOf(file: string, compiledDir: string | undefined): string {
  const rel = relative(process.cwd(), file);
  if (!compiledDir) return rel;
  const inCompiled = relative(compiledDir, file);
  return inCompiled.startsWith('..') ? rel : inCompiled.replace(/\.js$/, '.ts');
}

async function runJob(job: Job, tallyFile: string, opts: PoolOptions): Promise<{ tally?: Tally; broken: boolean }> {
  const started = Date.now();
  // A compiled file runs as JavaScript; unit files (in-process batches, files that spawn .ts children) keep tsx.
  const compiled = (f: string) => (opts.compiledDir && isHeavy(f) ? join(opts.compiledDir, f.replace(/\.ts$/, '.js')) : f);
  const files = job.files.map(compiled);
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${REPORTER}`, `--test-reporter-destination=${tallyFile}`];
  const runsCompiled = files.every((f, i) => f !== job.files[i]);
  const args = job.inProcess
    ? runsCompiled
      ? [...SOURCE_MAPS, ...reporters, join(opts.compiledDir!, IN_PROCESS.replace(/\.ts$/, '.js')), ...files]
      : ['--import', 'tsx', ...reporters, resolve(IN_PROCESS), ...files]
    : [...(runsCompiled ? SOURCE_MAPS : ['--import', 'tsx']), '--test', `--test-concurrency=${job.fileConcurrency}`, ...reporters, ...files];
  const child = spawn(process.execPath, args, { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => out.push(d));
  let killed = false;
  const deadline = setTimeout(() => {
    killed = true;
    // The whole tree: a test file's process under node --test would otherwise outlive the job.
    void killTree(child.pid!, 1_000);
  }, opts.jobDeadlineMs);
  const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
  clearTimeout(deadline);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let tally: Tally | undefined;
  try {
    tally = JSON.parse(readFileSync(tallyFile, 'utf8')) as Tally;
  } catch {
    tally = undefined;
  }
  // A job that failed without a failed test (killed, crashed, or a leftover error after its tests) is broken.
  const broken = killed || !tally || (code !== 0 && !tally.failed);
  const verdict = killed
    ? `KILLED after ${opts.jobDeadlineMs / 1000} s`
    : tally
      ? `${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped${broken ? `, exited ${code}` : ''}${tally.cpuMs === undefined ? '' : `; CPU ${(tally.cpuMs / 1000).toFixed(1)} s`}`
      : `exited ${code} without a tally`;
  process.stdout.write(Buffer.concat(out));
  opts.log(`${!broken && !tally?.failed ? 'ok' : 'FAILED'} ${job.label}: ${verdict} in ${seconds} s`);
  return { ...(tally ? { tally } : {}), broken };
}
