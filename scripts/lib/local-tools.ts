// What the finders of local tools share: the cache outside the repo, PATH look-ups and quiet runs whose
// failure keeps only the end of stderr (enough to say why in one line).
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

export type Env = Record<string, string | undefined>;

const execFileP = promisify(execFile);

/** `RELAYFLOW_CACHE_DIR`, else `${XDG_CACHE_HOME:-~/.cache}/relayflow`. */
export function cacheRoot(env: Env = process.env): string {
  return env.RELAYFLOW_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'relayflow');
}

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the directories of `env.PATH`. */
export async function onPath(name: string, env: Env): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** Runs `cmd`; on failure throws an error whose message is the last lines of its stderr (or why it did not start). */
export async function runQuiet(cmd: string, args: string[], opts: { env?: Env; timeoutMs?: number } = {}): Promise<string> {
  try {
    const { stdout } = await execFileP(cmd, args, {
      env: { ...process.env, ...opts.env },
      timeout: opts.timeoutMs ?? 0,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(stderr ? stderr.split('\n').slice(-3).join(' | ') : (err as Error).message);
  }
}

/** Seconds since `start` (a Date.now()), one decimal: for "took 9.1 s" lines. */
export function secondsSince(start: number): string {
  return ((Date.now() - start) / 1000).toFixed(1);
}
