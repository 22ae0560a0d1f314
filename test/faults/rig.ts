// The fault suite's relayflow, deployed as production runs it: `npm run cluster`'s topology (scripts/lib/cluster/
// start.ts) on ports and a data directory of its own: PostgreSQL, the Temporal server on it, the sandbox, two
// workers, two API instances and the front the platform's callbacks come through. A scenario kills and restarts
// any of them; the count reads the sandbox's records through its control routes, and the events every process
// tells from a subscription to all of them (test/faults/events.ts).
import { appendFileSync, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ulid } from 'ulid';
import { createLogger } from '../../common/logger.js';
import { createPlatformClients, type PlatformClients } from '../../platform/index.js';
import { startCluster, stopClusterLeftovers, type Cluster } from '../../scripts/lib/cluster/start.js';
import { isAlive } from '../../scripts/lib/leftover-server.js';
import { StopList } from '../../scripts/lib/cluster/stop-list.js';
import { freeClusterPorts } from '../../scripts/lib/cluster/free-ports.js';
import { watchEvents, type EventWatch } from './events.js';

export interface Rig {
  /** The front: the API as a client and the platform reach it. */
  apiUrl: string;
  cluster: Cluster;
  /** The platform as relayflow sees it, for counting what the sandbox holds. */
  platform: PlatformClients;
  /** Where the cluster keeps its data and logs (logs/). */
  dir: string;
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
  sandboxControl(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
  /** A subscription to every event, made before any process starts, and its receiver. */
  events: EventWatch;
  /** The PID of a part the cluster remembers (`worker-1`, `api-2`...), while it runs. */
  pidOf(name: string): Promise<number>;
  /** Stops everything; the data directory is removed unless `keep` (a failed run's logs are worth reading). */
  close(opts?: { keep?: boolean }): Promise<void>;
}

/**
 * A run killed without closing its rig (a job past its deadline, a Ctrl-C) leaves its cluster running, each part in
 * a process group of its own: the next rig stops those of runs whose test process is gone, and removes their data
 * unless a failed run kept it for its logs.
 */
async function sweepEarlierRuns(root: string, say: (msg: string) => void): Promise<void> {
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const dir = join(root, name);
    const owner = Number((await readFile(join(dir, 'owner.pid'), 'utf8').catch(() => '')).trim());
    if (owner > 0 && isAlive(owner)) continue;
    await stopClusterLeftovers(dir, say);
    if (!existsSync(join(dir, 'kept'))) await rm(dir, { recursive: true, force: true });
  }
}

export async function startRig(opts: { env?: Record<string, string>; sandboxEnv?: Record<string, string>; workflowBundle?: string } = {}): Promise<Rig> {
  const repo = resolve('.');
  // Under the repo, not /tmp: PostgreSQL runs as another user when the tests run as root, and must reach its directory.
  const root = join(repo, '.relayflow', 'test-cluster');
  const dir = join(root, ulid().toLowerCase());
  await mkdir(join(dir, 'logs'), { recursive: true });
  const say = (msg: string) => appendFileSync(join(dir, 'logs', 'cluster.log'), `${new Date().toISOString()} ${msg}\n`);
  await writeFile(join(dir, 'owner.pid'), `${process.pid}\n`);
  await sweepEarlierRuns(root, say);
  const stops = new StopList();
  const logLevel = 'info';
  let cluster: Cluster;
  try {
    cluster = await startCluster({
      repo,
      dir,
      ports: await freeClusterPorts(),
      logLevel,
      logger: createLogger({ name: 'fault-rig', level: 'silent' }),
      say,
      stops,
      baseEnv: process.env as Record<string, string>,
      relayflowEnv: { RELAYFLOW_WORKER_METRICS_PORT: 'off', RELAYFLOW_RATE_LIMIT_PER_MINUTE: '10000000', ...opts.env },
      ...(opts.sandboxEnv ? { sandboxEnv: opts.sandboxEnv } : {}),
      workflowBundle: opts.workflowBundle ?? process.env.RELAYFLOW_WORKFLOW_BUNDLE,
    });
  } catch (err) {
    await stops.stopAll(say);
    throw new Error(`the cluster did not start (logs in ${join(dir, 'logs')}): ${(err as Error).message}`);
  }
  const platform = createPlatformClients(cluster.config.platform);
  const api: Rig['api'] = async (method, path, body, headers = {}) => {
    const res = await fetch(`${cluster.frontUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${cluster.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  let events: EventWatch;
  try {
    events = await watchEvents(api);
  } catch (err) {
    await stops.stopAll(say);
    throw err;
  }
  stops.add(['event receiver', () => events.close()]);
  return {
    apiUrl: cluster.frontUrl,
    cluster,
    platform,
    dir,
    api,
    events,
    async pidOf(name) {
      const pid = Number((await readFile(join(dir, 'pids', `${name}.pid`), 'utf8').catch(() => '')).trim());
      if (!(pid > 0)) throw new Error(`no PID kept for ${name} in ${join(dir, 'pids')}`);
      return pid;
    },
    async sandboxControl(method, path, body) {
      const res = await fetch(`${cluster.sandboxUrl}/_sandbox${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    },
    async close({ keep = false } = {}) {
      await stops.stopAll(say);
      if (keep) await writeFile(join(dir, 'kept'), 'a failed run: its logs are kept\n');
      else await rm(dir, { recursive: true, force: true });
    },
  };
}
