// The cluster's PostgreSQL: a data directory kept under .relayflow/cluster/ (initdb on the first run only), the
// server on its own port, and the databases Temporal and the campaign store need. The binaries come from
// scripts/lib/postgres-bin.ts; as root the server runs as `postgres` or `nobody` (initdb refuses root).
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { isAlive } from '../leftover-server.js';
import { asServerUser, findPostgresBin, serverUser } from '../postgres-bin.js';

export const CLUSTER_DB_USER = 'temporal';
export const CLUSTER_DB_PASSWORD = 'temporal';
/** Temporal's two databases and the campaign store's (compose creates the same: deploy/postgres/). */
export const CLUSTER_DATABASES = ['temporal', 'temporal_visibility', 'relayflow'] as const;

export interface ClusterPostgres {
  port: number;
  /** "initialised" (a fresh data directory) or "reused". */
  data: 'initialised' | 'reused';
  /** The databases this run created (the others were there). */
  created: string[];
  source: string;
  url(database: string): string;
  /** `fast` ends sessions and shuts down cleanly; `immediate` is what a crash looks like to its clients. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
}

const quiet = () => undefined;

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', quiet);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(quiet);
  }
}

/** Until a connection answers (the npm package has no pg_isready), the server exits, or a minute passes. */
async function waitUntilReady(url: string, server: ChildProcess, port: number): Promise<void> {
  for (const deadline = Date.now() + 60_000; !(await answers(url)); await new Promise((r) => setTimeout(r, 200))) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`PostgreSQL did not start on port ${port} (see its log)`);
  }
}

/**
 * A server an earlier run left running (its script was killed without a chance to stop it) holds the data directory
 * and the port: stopped, as the script would have, with pg_ctl (the PID in the lock file is the server's own).
 */
function stopLeftoverPostgres(bin: string, dir: string, log: (msg: string) => void): void {
  const data = join(dir, 'data');
  const lock = join(data, 'postmaster.pid');
  const leftover = existsSync(lock) ? Number(readFileSync(lock, 'utf8').split('\n')[0]) : 0;
  if (!(leftover > 0 && isAlive(leftover))) return;
  log(`stopping the PostgreSQL an earlier run of this cluster left running (pid ${leftover})...`);
  execFileSync(...asServerUser(serverUser(), join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-w']), { stdio: 'ignore' });
}

/** What `stopLeftoverPostgres` does, for a cluster's directory found without starting it again (the rig's sweep). */
export async function stopClusterPostgresLeftover(dir: string, log: (msg: string) => void): Promise<void> {
  if (!existsSync(join(dir, 'data', 'postmaster.pid'))) return;
  stopLeftoverPostgres((await findPostgresBin({ log })).bin, dir, log);
}

export async function startClusterPostgres(opts: { dir: string; port: number; log: (msg: string) => void }): Promise<ClusterPostgres> {
  const { bin, source } = await findPostgresBin({ log: opts.log });
  const user = serverUser();
  const own = (path: string) => {
    if (!user) return;
    const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }));
    chownSync(path, id('-u'), id('-g'));
  };
  mkdirSync(opts.dir, { recursive: true });
  own(opts.dir);
  const data = join(opts.dir, 'data');
  const fresh = !existsSync(join(data, 'PG_VERSION'));
  if (fresh) {
    const pwfile = join(opts.dir, 'pwfile');
    writeFileSync(pwfile, `${CLUSTER_DB_PASSWORD}\n`, { mode: 0o600 });
    own(pwfile);
    // The C locale: a fresh machine may have no other. Password auth over TCP, as the compose file's server has.
    execFileSync(
      ...asServerUser(user, join(bin, 'initdb'), ['-D', data, '-U', CLUSTER_DB_USER, `--pwfile=${pwfile}`, '-A', 'scram-sha-256', '--locale=C', '-E', 'UTF8']),
      { stdio: 'ignore' },
    );
  }
  stopLeftoverPostgres(bin, opts.dir, opts.log);
  const logFd = openSync(join(opts.dir, 'postgres.log'), 'a');
  const server = spawn(
    ...asServerUser(user, join(bin, 'postgres'), [
      '-D',
      data,
      '-p',
      String(opts.port),
      '-k',
      opts.dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
    ]),
    // Its own process group: Ctrl-C reaches the script, which stops the server last, with pg_ctl.
    { stdio: ['ignore', logFd, logFd], detached: true },
  );
  const url = (database: string) => `postgres://${CLUSTER_DB_USER}:${CLUSTER_DB_PASSWORD}@127.0.0.1:${opts.port}/${database}`;
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    if (server.exitCode !== null) return;
    const exited = new Promise((r) => server.once('exit', r));
    // runuser does not pass signals on: pg_ctl stops the server itself (data kept either way). Not a sync call:
    // the fault rig's front shares this process, and a stalled front made the platform's callbacks time out.
    try {
      await promisify(execFile)(...asServerUser(user, join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', mode, '-w']));
    } catch {
      server.kill('SIGKILL');
    }
    await exited;
  };
  try {
    await waitUntilReady(url('postgres'), server, opts.port);
    const created: string[] = [];
    const admin = new pg.Client({ connectionString: url('postgres') });
    await admin.connect();
    try {
      for (const db of CLUSTER_DATABASES) {
        const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [db]);
        if (rowCount) continue;
        await admin.query(`create database ${db}`);
        created.push(db);
      }
    } finally {
      await admin.end();
    }
    return { port: opts.port, data: fresh ? 'initialised' : 'reused', created, source, url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
