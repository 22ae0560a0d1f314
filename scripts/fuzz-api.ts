// `npm run fuzz`: schemathesis (PyPI) over the API's own OpenAPI document (/docs/json) with an API key and
// every check, against a whole relayflow (Temporal dev server, sandbox, worker, API on a real port), bounded
// in cases and in time. Exits non-zero on any failure or error, or when the run does not finish in time.
//
// Knobs (environment):
//   FUZZ_MAX_EXAMPLES  cases per operation in the fuzzing phase; default 40 (93 operations: the coverage phase alone
//                      takes about 170 s here, and the onboarding operations start real processes)
//   FUZZ_SEED          default fixed, so a CI failure reproduces; set another to explore
//   FUZZ_TIMEOUT_S     watchdog on schemathesis; default 540, so the whole run stays under 10 minutes
//   FUZZ_WORKERS       default 1: the API, worker and Temporal share the cores, and on Python < 3.12 parallel
//                      workers can trip CPython's "AST constructor recursion depth mismatch" (a false error)
//   PYTHON             the interpreter schemathesis is installed in; default python3
// Arguments after `--` go to `schemathesis run` (e.g. `npm run fuzz -- --include-path /v1/processes`).
// Reports (JUnit, NDJSON with every request and response) land in .relayflow/fuzz/.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { buildWorkflowBundle } from '../workers/build-bundle.js';
import { startHarness, TEST_API_KEY, type Harness } from '../test/helpers/harness.js';
import { startDevServer, type DevServer } from './lib/dev-server.js';

const started = Date.now();
const log = (msg: string) => process.stdout.write(`[fuzz] ${msg}\n`);
const env = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive whole number`);
  return v;
};
const maxExamples = env('FUZZ_MAX_EXAMPLES', 40);
const seed = env('FUZZ_SEED', 20240601);
const timeoutS = env('FUZZ_TIMEOUT_S', 540);
const workers = env('FUZZ_WORKERS', 1);
const python = process.env.PYTHON ?? 'python3';
const reportDir = resolve('.relayflow/fuzz');

// The API's own string formats (api/plugins/validation.ts), taught to schemathesis so that what it
// generates as valid is valid: without them, `positive_data_acceptance` counts their 400s as failures.
const HOOKS = `# Written by scripts/fuzz-api.ts on every run.
import schemathesis
from hypothesis import strategies as st

# page-token: a token is the nextPageToken of an earlier page; the only one a client can write is the empty one.
schemathesis.openapi.format("page-token", st.just(""))
# e164: numbers libphonenumber calls valid, in ranges where every digit string is valid.
schemathesis.openapi.format("e164", st.one_of(
    st.from_regex("[+]467[03][0-9]{7}", fullmatch=True),
    st.from_regex("[+]336[0-9]{8}", fullmatch=True),
    st.from_regex("[+]4915[0-9]{9}", fullmatch=True),
    st.from_regex("[+]1202555[0-9]{4}", fullmatch=True),
))
# webhook-url: an event receiver; hosts under .example never resolve, so no delivery reaches anything.
schemathesis.openapi.format("webhook-url", st.from_regex("https?://[a-z]{1,12}[.]example(:[1-9][0-9]{3})?/[a-z0-9/]{0,16}", fullmatch=True))
`;

// 400 means the document says the request is wrong (validation names the field); 422 means it is
// well-formed but refused by rules the document cannot state because they live on the platform (the RCS
// questionnaire, CHATB categories, codec keys). Routes that can answer 422 declare it.
const CONFIG = `# Written by scripts/fuzz-api.ts on every run.
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]
`;

let server: DevServer | undefined;
let harness: Harness | undefined;
let child: ChildProcess | undefined;
let stopping = false;
// Ctrl-C or CI cancelling: stop schemathesis, then still close the API and the (detached) Temporal server.
const stop = (signal: NodeJS.Signals) => {
  stopping = true;
  log(`${signal}: stopping`);
  child?.kill(signal);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

let code = 1;
try {
  server = await startDevServer({ log });
  // Its own bundle path: `npm test` may be writing .relayflow/test/ at the same time.
  const bundle = await buildWorkflowBundle(resolve('.relayflow/fuzz-workflow-bundle.js'));
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.RELAYFLOW_WORKFLOW_BUNDLE = bundle;
  harness = await startHarness();
  log(`API at ${harness.apiUrl}, Temporal at ${server.address}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await rm(reportDir, { recursive: true, force: true });
  await mkdir(join(reportDir, 'hooks'), { recursive: true });
  await writeFile(join(reportDir, 'hooks', 'relayflow_fuzz_hooks.py'), HOOKS);
  await writeFile(join(reportDir, 'schemathesis.toml'), CONFIG);
  if (stopping) throw new Error('interrupted');

  const command = [
    '-m',
    'schemathesis.cli', // the interpreter CI installed it into, whatever PATH says
    '--config-file',
    join(reportDir, 'schemathesis.toml'),
    'run',
    `${harness.apiUrl}/docs/json`,
    '--checks',
    'all',
    '-H',
    `Authorization: Bearer ${TEST_API_KEY}`,
    // Stateful too: it chains a start to its read and actions along the document's links (derived from the family registry).
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--max-examples',
    String(maxExamples),
    '--seed',
    String(seed),
    // Reproducible: no examples carried over from earlier runs.
    '--generation-database',
    'none',
    '--workers',
    String(workers),
    // Every wait in the API has a deadline of a few seconds: a slower answer is a finding, a hang an error.
    '--max-response-time',
    '8',
    '--request-timeout',
    '10',
    '--no-color',
    '--report',
    'junit,ndjson',
    '--report-dir',
    reportDir,
    ...process.argv.slice(2),
  ];
  log(`SCHEMATHESIS_HOOKS=relayflow_fuzz_hooks ${python} ${command.join(' ').replace(TEST_API_KEY, '<key>')}`);
  const proc = spawn(python, command, {
    stdio: 'inherit',
    env: {
      ...process.env,
      SCHEMATHESIS_HOOKS: 'relayflow_fuzz_hooks',
      PYTHONPATH: [join(reportDir, 'hooks'), process.env.PYTHONPATH].filter(Boolean).join(':'),
    },
  });
  child = proc;
  // The watchdog: a run over budget fails instead of holding CI.
  let timedOut = false;
  const watchdog = setTimeout(() => {
    timedOut = true;
    log(`schemathesis did not finish within ${timeoutS} s: stopping it`);
    proc.kill('SIGTERM');
    setTimeout(() => proc.kill('SIGKILL'), 5_000).unref();
  }, timeoutS * 1000);
  code = await new Promise<number>((res) => {
    proc.on('error', (err) => {
      log(`could not run schemathesis (${err.message}): ${python} -m pip install schemathesis`);
      res(1);
    });
    proc.on('exit', (c, signal) => res(c ?? (signal ? 1 : 0)));
  });
  clearTimeout(watchdog);
  if (timedOut || stopping) code = code || 1;
  log(`schemathesis exited with ${code}; reports in ${reportDir}`);
} catch (err) {
  log(`failed: ${(err as Error).stack ?? err}`);
  code = 1;
} finally {
  await harness?.close().catch((err) => log(`harness close: ${(err as Error).message}`));
  await server?.stop().catch((err) => log(`server stop: ${(err as Error).message}`));
  log(`finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
process.exit(code);
