// Which Temporal server a benchmark runs on (RELAYFLOW_BENCH_TARGET): `dev`, the Temporal CLI's dev server on
// SQLite (the default, what the recorded tables and the CI alarm use), or `cluster`, the Temporal server on
// PostgreSQL as `npm run cluster` runs it (deploy/temporal/), started fresh for the bench and removed after it.
// The servers' modules are imported when one starts: the table's argument parsing imports this file too.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_TARGETS = ['dev', 'cluster'] as const;
export type BenchTarget = (typeof BENCH_TARGETS)[number];

export function benchTarget(env: NodeJS.ProcessEnv = process.env): BenchTarget {
  const t = (env.RELAYFLOW_BENCH_TARGET ?? '').trim() || 'dev';
  if (!(BENCH_TARGETS as readonly string[]).includes(t)) {
    throw new Error(`RELAYFLOW_BENCH_TARGET must be ${BENCH_TARGETS.join(' or ')} (got "${t}")`);
  }
  return t as BenchTarget;
}

export interface BenchTemporal {
  address: string;
  target: BenchTarget;
  /** For the bench's log, e.g. "Temporal server 1.29.1 on PostgreSQL (cluster)". */
  describe: string;
  stop(): Promise<void>;
}

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const NAMESPACE = 'default'; // the benches' clients and workers use the default namespace, as the cluster's do
export async function startBenchTemporal(opts: { log: (msg: string) => void; target?: BenchTarget }): Promise<BenchTemporal> {
  const target = opts.target ?? benchTarget();
  if (target === 'dev') {
    const { startDevServer } = await import('../scripts/lib/dev-server.js');
    const server = await startDevServer({ log: opts.log });
    return { address: server.address, target, describe: `Temporal CLI dev server on SQLite (dev: ${server.cli.source})`, stop: () => server.stop() };
  }
  return startCluster(opts.log);
}

async function startCluster(log: (msg: string) => void): Promise<BenchTemporal> {
  const t0 = Date.now();
  const dir = join(repo, '.relayflow', 'bench', `cluster-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  const stops: Array<() => Promise<unknown>> = [() => rm(dir, { recursive: true, force: true })];
  let server = '';
  const killOnExit = () => killLeftovers(dir, server);
  process.once('exit', killOnExit);
  stops.push(async () => process.removeListener('exit', killOnExit));
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch((err: Error) => log(`cluster stop: ${err.message}`));
  };
  try {
    const [{ freePort }, { freeTemporalBasePort }, { startClusterPostgres }, { applySchemas, startClusterTemporal }, { findTemporalServerBin }] =
      await Promise.all([
        import('../scripts/lib/dev-server.js'),
        import('../scripts/lib/cluster/free-ports.js'),
        import('../scripts/lib/cluster/postgres.js'),
        import('../scripts/lib/cluster/temporal-server.js'),
        import('../scripts/lib/cluster/temporal-server-bin.js'),
      ]);
    const bin = await findTemporalServerBin({ log });
    server = bin.server;
    const pg = await startClusterPostgres({ dir: join(dir, 'postgres'), port: await freePort(), log });
    stops.push(() => pg.stop());
    await applySchemas(bin, { pgPort: pg.port, created: pg.created });
    const temporal = await startClusterTemporal(bin, {
      repo,
      pgPort: pg.port,
      basePort: await freeTemporalBasePort(),
      logFile: join(dir, 'temporal.log'),
      namespace: NAMESPACE,
    });
    stops.push(() => temporal.stop());
    await registerSearchAttributes(temporal.address);
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    log(`cluster target ready in ${secs} s: Temporal at ${temporal.address}, PostgreSQL on 127.0.0.1:${pg.port}, data in ${dir}`);
    return { address: temporal.address, target: 'cluster', describe: `Temporal server on PostgreSQL (cluster: ${bin.source}, deploy/temporal/)`, stop };
  } catch (err) {
    // The directory goes with the stop: the server's last lines go into the error.
    const tail = await readFile(join(dir, 'temporal.log'), 'utf8').then(
      (t) => t.trim().split('\n').slice(-15).join('\n'),
      () => '',
    );
    await stop();
    if (tail) (err as Error).message += `\nlast lines of the Temporal server's log:\n${tail}`;
    throw err;
  }
}

/**
 * A bench that exits without stopping (an error before its own cleanup, a shutdown deadline) must not leave the
 * servers running: both run detached. Synchronous, as an 'exit' handler must be: PostgreSQL by its postmaster.pid
 * (immediate shutdown), the Temporal server as this process's child running that binary.
 */
function killLeftovers(dir: string, serverBin: string): void {
  const kill = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  };
  const pidFile = join(dir, 'postgres', 'data', 'postmaster.pid');
  if (existsSync(pidFile)) kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGQUIT');
  if (!serverBin) return;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === process.pid && readlinkSync(`/proc/${pid}/exe`) === serverBin) kill(Number(pid), 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
}

/** As scripts/cluster.ts does; then waits until the frontend lists them (the workers' queries filter on them). */
async function registerSearchAttributes(address: string): Promise<void> {
  const [{ Client, Connection }, { createLogger }, { SEARCH_ATTRIBUTE_KEYS }, { ensureSearchAttributes }] = await Promise.all([
    import('@temporalio/client'),
    import('../common/logger.js'),
    import('../common/search-attributes.js'),
    import('../workers/search-attributes.js'),
  ]);
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: NAMESPACE });
    await ensureSearchAttributes(client, createLogger({ name: 'bench-cluster', level: 'warn' }));
    for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 500))) {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: NAMESPACE });
      if (SEARCH_ATTRIBUTE_KEYS.every((k) => k.name in (customAttributes ?? {}))) return;
      if (Date.now() > deadline) throw new Error('the search attributes were not registered within 30 s');
    }
  } finally {
    await connection.close();
  }
}
