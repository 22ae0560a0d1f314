// `npm test`: fetch what the tests need, start one Temporal dev server for the suite and build the workflow
// bundle once, then run every test file but the heaviest end-to-end ones (`npm run test:full` adds them; or
// the files given: `npm test -- test/common/config.test.ts`) side by side (scripts/lib/test-pool.ts).
// `npm run test:cluster` (--cluster) runs the files that start the production topology of their own instead.
// Ends with one line: `N passed, N failed, N skipped`.
import { availableParallelism } from 'node:os';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { cachedWorkflowBundle, CHECKOUT_BUNDLE_CACHE } from '../workers/bundle-cache.js';
import { SHARED_PG_ENV, startSharedPostgres } from '../test/helpers/shared-postgres.js';
import { startDevServer } from './lib/dev-server.js';
import { cacheRoot } from './lib/local-tools.js';
import { compileForTests } from './lib/test-compile.js';
import { ensureTestDependencies } from './lib/test-deps.js';
import { measureRunShare } from './lib/test-load.js';
import { planJobs, runPool, TestTimes } from './lib/test-pool.js';

/** Every `*.test.ts` under test/ (test/<layer>/<family>/, docs/testing.md); helpers and fixtures hold none. */
const SUITES = ['test'];
/**
 * Whole deployments started as separate processes (`npm start`, three times, once more for the web UI's codec,
 * and once for the README's try-it blocks), and the audit page's own files, which drive headless Chromium through
 * whole processes (the page, its actions, its calls, the SDK verification's picture): each costs as much CPU as a
 * dozen other files (the README's 37 s, the page's 33 s), so they run in `npm run test:full` (.ci/run), not in every
 * `npm test` on two cores. So does the replay of every fixture with each interceptor set (35 s of CPU; the plain
 * replay of every fixture stays in `npm test`): a check of what a release freezes, run by CI.
 */
const FULL_ONLY = [
  'test/workflows/replay/interceptors.test.ts',
  'test/e2e/npm-start.test.ts',
  'test/e2e/web-ui-codec.test.ts',
  'test/e2e/readme-try-it.test.ts',
  'test/e2e/ui-page.test.ts',
  'test/e2e/ui-actions.test.ts',
  'test/e2e/ui-calls.test.ts',
  'test/e2e/verification/sdk-verification-picture.test.ts',
];
/** The fault suite starts a whole cluster (`npm run cluster`'s topology) and breaks it: `npm run test:cluster`, alone. */
const CLUSTER_ONLY = ['test/faults/'];

const FLAGS = ['--full', '--cluster', '--save-baseline'];
const cluster = process.argv.includes('--cluster');
/** The file times a fresh machine plans its first run by (scripts/lib/test-pool.ts); `--save-baseline` writes them. */
const BASELINE_TIMES = 'test/file-times.json';

function testFiles(): string[] {
  const args = process.argv.slice(2);
  const full = args.includes('--full');
  const given = args.filter((a) => !FLAGS.includes(a));
  if (cluster) return CLUSTER_ONLY.flatMap((dir) => testFilesUnder(dir));
  // A directory given stands for every test file under it; a file given runs even if only test:full has it.
  if (given.length) return given.map((f) => relative(process.cwd(), resolve(f))).flatMap((f) => (statSync(f).isDirectory() ? testFilesUnder(f) : [f]));
  return SUITES.flatMap((dir) => {
    try {
      return testFilesUnder(dir).filter((f) => !CLUSTER_ONLY.some((only) => f.startsWith(only)) && (full || !FULL_ONLY.some((only) => f.startsWith(only))));
    } catch {
      return [];
    }
  });
}

function testFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => join(dir, f));
}

/** A positive integer from the environment, or the default. */
function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: "${raw}" is not a positive integer`);
  return n;
}

const started = Date.now();
const share = measureRunShare();
const log = (msg: string) => process.stdout.write(`[test] ${msg}\n`);
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

// Most of a workflow test's time is spent waiting on timers and the server, not on CPU, and more so in a job that
// runs files one after another: three jobs per core (two left the cores a third idle; with four, test:full in CI took
// 540 s against 507 s, and npm start's first start, bundling from source, missed its 120 s).
const concurrency = intFromEnv('RELAYFLOW_TEST_CONCURRENCY', Math.max(2, availableParallelism() * 3));
const files = testFiles();
// Everything the tests need, found or installed before any test runs: a missing one stops the run at once.
try {
  Object.assign(process.env, (await ensureTestDependencies({ log })).env);
} catch (err) {
  log((err as Error).message);
  process.stdout.write('0 passed, 1 failed, 0 skipped\n');
  process.exit(1);
}
// A directory of this run's own: two runs at once (a developer's and an editor's) must not share the bundle or tallies.
mkdirSync(resolve('.relayflow/test'), { recursive: true });
const runDir = mkdtempSync(resolve('.relayflow/test/run-'));
const compiledDir = process.env.RELAYFLOW_TEST_TSX ? undefined : join(runDir, 'js');
// The fault suite starts a cluster of its own (its Temporal server and PostgreSQL): only the bundle is shared with it.
const noServer = { address: '', cli: { source: 'not needed' }, stop: async () => {} };
// The server deletes a closed run only once its close is in visibility, checked again after 3 s, 4.5 s, 6.75 s...: the
// audit tests that delete runs (retention's doing in production) waited 20 to 30 s for each. Here it deletes at once.
const serverStarting = cluster
  ? Promise.resolve(noServer)
  : startDevServer({ log, dynamicConfig: { 'history.transferProcessorEnsureCloseBeforeDelete': false } });
const postgresStarting = cluster ? Promise.resolve({ url: '', stop: async () => {} }) : startSharedPostgres();
const ready = Promise.all([
  serverStarting,
  postgresStarting,
  // Reused while the workflow code is unchanged (workers/bundle-cache.ts); copied into this run's directory so
  // that another run's pruning of the cache cannot remove it mid-run.
  cachedWorkflowBundle(CHECKOUT_BUNDLE_CACHE).then((b) => {
    copyFileSync(b.path, join(runDir, 'workflow-bundle.js'));
    return { path: join(runDir, 'workflow-bundle.js'), reused: b.reused };
  }),
  compiledDir ? compileForTests(compiledDir) : 0,
]);
// A tree that does not compile (or a server that did not start) must not leave the other servers running.
const [server, postgres, bundle, compiledFiles] = await ready.catch(async (err: unknown) => {
  await Promise.allSettled([serverStarting.then((s) => s.stop()), postgresStarting.then((p) => p.stop())]);
  rmSync(runDir, { recursive: true, force: true });
  throw err;
});
log(
  `${cluster ? 'the cluster suite starts its own servers' : `Temporal dev server at ${server.address} (CLI from ${server.cli.source}); PostgreSQL for the harnesses' stores`}; workflow bundle ${bundle.reused ? 'reused (workflow code unchanged)' : 'built'}; ${compiledDir ? `${compiledFiles} files compiled; ` : ''}${elapsed()}`,
);

const times = new TestTimes(join(cacheRoot(), 'test-times.json'), BASELINE_TIMES);
// Three unit batches: a hundred-odd unit files took about 430 s one after another, and two batches of them ended the
// run (240 s on a quiet machine, 480 s on a busy one) while the heavy jobs had finished.
const jobs = planJobs(files, times, 3);
log(`${files.length} files in ${jobs.length} jobs, ${concurrency} at a time`);
let result;
try {
  result = await runPool(jobs, {
    concurrency,
    env: {
      ...process.env,
      RELAYFLOW_WORKFLOW_BUNDLE: bundle.path,
      ...(cluster ? {} : { TEMPORAL_ADDRESS: server.address, [SHARED_PG_ENV]: postgres.url }),
      // Where entry points a test starts as processes of their own run from (test/helpers/compiled-tree.ts).
      ...(compiledDir ? { RELAYFLOW_TEST_COMPILED_DIR: compiledDir } : {}),
    },
    ...(compiledDir ? { compiledDir } : {}),
    // The cluster's file runs every row of the fault table one after another.
    jobDeadlineMs: intFromEnv('RELAYFLOW_TEST_JOB_DEADLINE_MS', (cluster ? 20 : 10) * 60_000),
    workDir: join(runDir, 'tallies'),
    log,
  });
} finally {
  await Promise.all([server.stop(), postgres.stop()]);
  rmSync(runDir, { recursive: true, force: true });
}
// Wall times stretched by other work on the machine would plan the next run's batches as if every file were slower.
const { own, scale } = share.end();
times.save(result.files, scale);
if (process.argv.includes('--save-baseline')) {
  const known = new Set(SUITES.flatMap((dir) => testFilesUnder(dir)));
  const kept = Object.entries(times.measured())
    .filter(([f]) => known.has(f))
    .sort(([a], [b]) => a.localeCompare(b));
  writeFileSync(BASELINE_TIMES, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`);
  log(`${kept.length} file times saved in ${BASELINE_TIMES}`);
}
if (scale < 1) log(`other work took ${Math.round((1 - own) * 100)}% of the busy cores: this run's file times are saved scaled by ${scale.toFixed(2)}`);

const slowest = Object.entries(result.files)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 8);
log(`slowest files: ${slowest.map(([f, ms]) => `${f} ${(ms / 1000).toFixed(0)} s`).join(', ')}`);
// Two cores: the suite's wall time follows the CPU its jobs burn, not their wall times (which include waiting).
const hungriest = Object.entries(result.jobCpuMs)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 8);
log(`CPU of the jobs: ${(result.cpuMs / 1000).toFixed(0)} s; most: ${hungriest.map(([f, ms]) => `${f} ${(ms / 1000).toFixed(0)} s`).join(', ')}`);
if (result.broken.length) log(`jobs that ended without passing (each counted as one failure): ${result.broken.join(', ')}`);
log(`suite finished in ${elapsed()}`);
process.stdout.write(`${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped\n`);
process.exit(result.failed ? 1 : 0);
