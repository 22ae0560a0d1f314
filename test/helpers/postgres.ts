// A throwaway PostgreSQL for tests that need the campaign store shared between processes (a worker that is
// killed). Built from the machine's PostgreSQL binaries (Debian's postgresql package; .ci/run installs it).
// initdb refuses to run as root, so as root the server runs as the `postgres` user.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length) return join(root, versions[0]!, 'bin');
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('PostgreSQL binaries not found (apt-get install postgresql): the multi-process campaign tests need them');
  }
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'relayflow-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
  }
  const run = (cmd: string, args: string[]) => (asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]) as [string, string[]];
  execFileSync(...run(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']), { stdio: 'ignore' });
  const port = await freePort();
  const server: ChildProcess = spawn(...run(join(bin, 'postgres'), ['-D', join(dir, 'data'), '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']), { stdio: 'ignore' });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      execFileSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
      break;
    } catch {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`PostgreSQL did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      // runuser does not pass signals on: pg_ctl stops the server itself.
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once('exit', r));
        try {
          execFileSync(...run(join(bin, 'pg_ctl'), ['stop', '-D', join(dir, 'data'), '-m', 'immediate', '-w']), { stdio: 'ignore' });
        } catch {
          server.kill('SIGKILL');
        }
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
