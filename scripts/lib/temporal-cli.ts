// Finds a Temporal CLI for the local dev server, in the documented order; the SDK's download is the last resort.
import { execFile } from 'node:child_process';
import { access, constants, mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;

export type TemporalCli = { kind: 'path'; path: string; source: string } | { kind: 'sdk-download'; source: string };

type Env = Record<string, string | undefined>;

export function cliCacheDir(env: Env = process.env): string {
  const base = env.RELAYFLOW_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'relayflow');
  return join(base, 'temporal-cli', TEMPORAL_CLI_VERSION);
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function onPath(name: string, env: Env): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export interface FindOptions {
  env?: Env;
  /** Whether the SDK's own download may be used when nothing else works (needs the open internet). */
  allowSdkDownload?: boolean;
  log?: (msg: string) => void;
}

/** Explicit path, `temporal` on PATH, cached build, `go install` into the cache, then the SDK's download. */
export async function findTemporalCli(opts: FindOptions = {}): Promise<TemporalCli> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  const tried: string[] = [];

  const explicit = env.RELAYFLOW_TEMPORAL_CLI?.trim();
  if (explicit) {
    if (await isExecutable(explicit)) return { kind: 'path', path: explicit, source: 'RELAYFLOW_TEMPORAL_CLI' };
    throw new Error(`RELAYFLOW_TEMPORAL_CLI: "${explicit}" is not an executable file`);
  }
  tried.push('RELAYFLOW_TEMPORAL_CLI: not set (set it to the path of a temporal binary)');

  const fromPath = await onPath('temporal', env);
  if (fromPath) return { kind: 'path', path: fromPath, source: 'PATH' };
  tried.push('`temporal` on PATH: not found (install the Temporal CLI and put it on PATH)');

  const cacheDir = cliCacheDir(env);
  const cached = join(cacheDir, 'temporal');
  if (await isExecutable(cached)) return { kind: 'path', path: cached, source: `cache (${cacheDir})` };
  tried.push(`cached build at ${cached}: not there (RELAYFLOW_CACHE_DIR moves the cache)`);

  const go = await onPath('go', env);
  if (go) {
    log(`building the Temporal CLI with \`go install ${TEMPORAL_CLI_MODULE}\` into ${cacheDir} (a few minutes, once)`);
    try {
      await mkdir(cacheDir, { recursive: true });
      await run(go, ['install', TEMPORAL_CLI_MODULE], {
        env: { ...process.env, ...env, GOBIN: cacheDir },
        maxBuffer: 64 * 1024 * 1024,
      });
      if (await isExecutable(cached)) return { kind: 'path', path: cached, source: 'go install' };
      tried.push(`go install ${TEMPORAL_CLI_MODULE}: finished but ${cached} is missing`);
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr?.trim().split('\n').slice(-3).join(' | ') ?? String(err);
      tried.push(`go install ${TEMPORAL_CLI_MODULE}: failed (${stderr})`);
    }
  } else {
    tried.push('go install: `go` not on PATH (install Go 1.22+ to build the CLI)');
  }

  if (opts.allowSdkDownload ?? true) return { kind: 'sdk-download', source: 'Temporal SDK download' };
  throw new Error(`No Temporal CLI could be found or built. Tried, in order:\n- ${tried.join('\n- ')}\n` +
    'Alternatively set TEMPORAL_ADDRESS to use a Temporal server that is already running.');
}
