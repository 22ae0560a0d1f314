// The machine a table was measured on, recorded with it: figures from different machines are not comparable.
// The Temporal CLI is found here once (the benches' dev servers then use the same one, RELAYFLOW_TEMPORAL_CLI).
import { execFile } from 'node:child_process';
import { cpus, platform, release, totalmem } from 'node:os';
import { promisify } from 'node:util';
import { findTemporalCli } from '../../scripts/lib/temporal-cli.js';
import type { Machine } from './outcome.js';

const run = promisify(execFile);
const firstLine = async (cmd: string, args: string[]) => (await run(cmd, args, { timeout: 10_000 })).stdout.trim().split('\n')[0] ?? '';

export async function temporalCli(log: (m: string) => void): Promise<{ path?: string; source: string; version?: string }> {
  const cli = await findTemporalCli({ log });
  if (cli.kind !== 'path') return { source: cli.source };
  const version = await firstLine(cli.path, ['--version']).catch(() => undefined);
  return { path: cli.path, source: cli.source, ...(version ? { version } : {}) };
}

async function git(): Promise<Machine['git']> {
  try {
    const commit = await firstLine('git', ['rev-parse', 'HEAD']);
    const { stdout } = await run('git', ['status', '--porcelain', '--untracked-files=no'], { timeout: 10_000 });
    return { commit, dirty: stdout.trim() !== '' };
  } catch {
    return undefined;
  }
}

export async function describeMachine(cli?: { source: string; version?: string }): Promise<Machine> {
  const list = cpus();
  const g = await git();
  return {
    cpus: { model: list[0]?.model.trim() ?? 'unknown', count: list.length },
    totalMemoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: platform(),
    release: release(),
    ...(cli ? { temporalCli: { source: cli.source, ...(cli.version ? { version: cli.version } : {}) } } : {}),
    ...(g ? { git: g } : {}),
  };
}
