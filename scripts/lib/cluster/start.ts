// The cluster started in order, each step waited for: PostgreSQL, Temporal's schemas, the Temporal server, the
// search attributes, the sandbox, the workflow bundle, two workers, two API instances, the front. `npm run cluster`
// prints what it did; the cluster tests and `npm run soak` (test/faults/rig.ts) also kill and restart its parts.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger } from '@temporalio/worker';
import { loadConfig, type Config } from '../../../common/config.js';
import type { Logger } from '../../../common/logger.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../../../common/search-attributes.js';
import { ensureSearchAttributes } from '../../../workers/search-attributes.js';
import { isVersionedBundle, workflowBundleOptions } from '../../../workers/workflow-options.js';
import { cachedWorkflowBundle, CHECKOUT_BUNDLE_CACHE } from '../../../workers/bundle-cache.js';
import { devSecrets } from '../dev-secrets.js';
import { forgetServer, rememberServer, stopLeftoverServer } from '../leftover-server.js';
import { secondsSince } from '../local-tools.js';
import { startFront } from './front.js';
import { startNodeProcess, type NodeProcess, type NodeProcessOptions } from './node-process.js';
import { CLUSTER_DATABASES, startClusterPostgres, stopClusterPostgresLeftover, type ClusterPostgres } from './postgres.js';
import { pointSandboxAt } from '../sandbox-urls.js';
import type { StopList } from './stop-list.js';
import { applySchemas, startClusterTemporal, TEMPORAL_CONFIG, type ClusterTemporal } from './temporal-server.js';
import { findTemporalServerBin, TEMPORAL_SERVER_VERSION } from './temporal-server-bin.js';
import { apiEnv, CLUSTER_NAMESPACE, sandboxEnv, workerEnv, type ClusterEnvInputs, type ClusterPorts } from './topology.js';

export interface ClusterOptions {
  repo: string;
  /** Data and logs (`.relayflow/cluster/` for `npm run cluster`). */
  dir: string;
  ports: ClusterPorts;
  logLevel: string;
  logger: Logger;
  /** Hears each step as it is done. */
  say(msg: string): void;
  /** Each part is added as it starts, so a stop asked half-way stops what runs. */
  stops: StopList;
  /** The environment the children inherit, before their own. */
  baseEnv: Record<string, string>;
  /** More environment for the workers and APIs (tests: shorter timeouts) and for the sandbox. */
  relayflowEnv?: Record<string, string>;
  sandboxEnv?: Record<string, string>;
  /** A workflow bundle already built (`npm test` builds one); otherwise it is built into `dir`. */
  workflowBundle?: string;
}

/** One of the cluster's parts that a fault can take down and bring back: the same command, the same data. */
interface Part {
  name: string;
  running(): boolean;
  /** `env` adds to its environment from now on (a worker restarted on a new build). */
  start(env?: Record<string, string>): Promise<void>;
  /** SIGKILL (PostgreSQL: an immediate shutdown, which is what its crash looks like to its clients). */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export interface Cluster {
  frontUrl: string;
  apiUrls: string[];
  sandboxUrl: string;
  temporalAddress: string;
  apiKey: string;
  /** The configuration every worker and API instance loads (the platform's address, the callback secrets). */
  config: Config;
  postgres: Part & { url(database: string): string };
  temporal: Part;
  sandbox: Part;
  workers: Part[];
  apis: Part[];
}

/** What the steps share: the options and the databases this run created. */
type StartOptions = ClusterOptions & { created: string[] };

/**
 * The processes that outlive a script killed without a chance to stop them (each runs in a process group of its
 * own), with what their command lines say: the next start stops them first (PostgreSQL: scripts/lib/cluster/postgres.ts).
 */
const LEFTOVERS = [
  ['api-2', 'api/main.ts'],
  ['api-1', 'api/main.ts'],
  ['worker-2', 'workers/main.ts'],
  ['worker-1', 'workers/main.ts'],
  ['sandbox', 'sandbox/main.ts'],
  ['temporal', TEMPORAL_CONFIG.dir],
] as const;
type PidName = (typeof LEFTOVERS)[number][0];
const pidFile = (dir: string, name: PidName) => join(dir, 'pids', `${name}.pid`);

/** Stops what an earlier run in `dir` left running, PostgreSQL last (a start does this itself; the test rig sweeps old runs). */
export async function stopClusterLeftovers(dir: string, say: (msg: string) => void): Promise<void> {
  await mkdir(join(dir, 'pids'), { recursive: true });
  for (const [name, marker] of LEFTOVERS) await stopLeftoverServer(pidFile(dir, name), say, { what: `${name} from an earlier run of this cluster`, marker });
  await stopClusterPostgresLeftover(join(dir, 'postgres'), say);
}

/** A node process that can be started again after a kill, with what it had; its PID is kept while it runs. */
function nodePart(o: StartOptions, pidName: PidName, opts: NodeProcessOptions): Part {
  let current: NodeProcess | undefined;
  const file = pidFile(o.dir, pidName);
  const ended = async (end: (p: NodeProcess) => Promise<void>) => {
    if (current) await end(current);
    await forgetServer(file);
  };
  return {
    name: opts.name,
    running: () => current?.running() ?? false,
    async start(env) {
      if (env) opts = { ...opts, env: { ...opts.env, ...env } };
      current = await startNodeProcess(opts);
      await rememberServer(file, current.pid);
    },
    kill: () => ended((p) => p.kill()),
    stop: () => ended((p) => p.stop()),
  };
}

async function searchAttributes(address: string, logger: Logger): Promise<string> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: CLUSTER_NAMESPACE });
    const existing = await connection.operatorService.listSearchAttributes({ namespace: CLUSTER_NAMESPACE });
    const missing = SEARCH_ATTRIBUTE_KEYS.filter((k) => !(k.name in (existing.customAttributes ?? {})));
    await ensureSearchAttributes(client, logger);
    return missing.length ? `created ${missing.map((k) => k.name).join(', ')}` : 'reused';
  } finally {
    await connection.close();
  }
}

async function startPostgresPart(o: StartOptions): Promise<Cluster['postgres'] & { first: ClusterPostgres }> {
  const start = () => startClusterPostgres({ dir: join(o.dir, 'postgres'), port: o.ports.postgres, log: o.say });
  let pg = await start();
  let up = true;
  o.stops.add(['PostgreSQL', () => (up ? pg.stop() : Promise.resolve())]);
  const down = async (how: 'fast' | 'immediate') => {
    if (!up) return;
    await pg.stop(how);
    up = false;
  };
  return {
    first: pg,
    name: 'PostgreSQL',
    url: (db) => pg.url(db),
    running: () => up,
    async start() {
      pg = await start();
      up = true;
    },
    kill: () => down('immediate'),
    stop: () => down('fast'),
  };
}

async function startTemporalPart(o: StartOptions, pgPort: number): Promise<Part & { first: ClusterTemporal }> {
  const bin = await findTemporalServerBin({ log: o.say });
  o.say(`Temporal server ${TEMPORAL_SERVER_VERSION}: ${bin.source}`);
  o.say(`Temporal schemas: ${(await applySchemas(bin, { pgPort, created: o.created })).join(', ')}`);
  const file = pidFile(o.dir, 'temporal');
  const start = async () => {
    const started = await startClusterTemporal(bin, {
      repo: o.repo,
      pgPort,
      basePort: o.ports.temporal,
      logFile: join(o.dir, 'logs', 'temporal.log'),
      namespace: CLUSTER_NAMESPACE,
      // Temporal's own history archival (filestore): raw histories kept past the namespace's retention.
      archivalDir: join(o.dir, 'temporal-archival'),
    });
    await rememberServer(file, started.pid);
    return started;
  };
  let server = await start();
  let up = true;
  const down = async (how: 'kill' | 'stop') => {
    if (up) await server[how]();
    up = false;
    await forgetServer(file);
  };
  o.stops.add(['Temporal server', () => down('stop')]);
  return {
    first: server,
    name: 'Temporal server',
    running: () => up,
    async start() {
      server = await start();
      up = true;
    },
    kill: () => down('kill'),
    stop: () => down('stop'),
  };
}

/**
 * The bundle both workers load: a versioned one (the cluster's workers run versioned, as a deployment does): the one
 * given when it is, else from the bundle cache, built when the workflows changed.
 */
async function workflowBundle(o: StartOptions): Promise<string> {
  if (o.workflowBundle && isVersionedBundle(await readFile(o.workflowBundle, 'utf8'))) return o.workflowBundle;
  const began = Date.now();
  const cached = await cachedWorkflowBundle(CHECKOUT_BUNDLE_CACHE, { options: workflowBundleOptions(undefined, true), logger: new DefaultLogger('WARN') });
  o.say(`versioned workflow bundle ${cached.path} (${cached.reused ? 'reused' : 'built'}, ${secondsSince(began)} s)`);
  return cached.path;
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const logs = join(opts.dir, 'logs');
  await mkdir(logs, { recursive: true });
  const secrets = await devSecrets(opts.dir);
  const o: StartOptions = { ...opts, created: [] };
  await stopClusterLeftovers(opts.dir, opts.say);

  const postgres = await startPostgresPart(o);
  const pg = postgres.first;
  o.created = pg.created;
  const reused = CLUSTER_DATABASES.filter((db) => !pg.created.includes(db));
  const dbs = [pg.created.length ? `created ${pg.created.join(', ')}` : '', reused.length ? `reused ${reused.join(', ')}` : ''].filter(Boolean);
  o.say(`PostgreSQL on 127.0.0.1:${pg.port} (${pg.source}): data ${pg.data}; databases ${dbs.join('; ')}`);

  const temporal = await startTemporalPart(o, pg.port);
  const temporalAddress = temporal.first.address;
  o.say(`Temporal server at ${temporalAddress} (config deploy/temporal/docker.yaml); namespace ${CLUSTER_NAMESPACE} ${temporal.first.namespace}`);
  o.say(`search attributes: ${await searchAttributes(temporalAddress, opts.logger)}`);

  const childEnv = (own: Record<string, string>, extra: Record<string, string> = {}) => ({ ...opts.baseEnv, ...own, ...extra });
  const sandbox = nodePart(o, 'sandbox', {
    name: 'sandbox',
    script: 'sandbox/main.ts',
    env: childEnv(sandboxEnv(opts.ports, join(opts.dir, 'sandbox'), opts.logLevel), opts.sandboxEnv),
    logFile: join(logs, 'sandbox.log'),
    ready: /sandbox listening on/,
  });
  await sandbox.start();
  opts.stops.add(['sandbox', () => sandbox.stop()]);

  const inputs: ClusterEnvInputs = {
    ports: opts.ports,
    apiKeys: secrets.apiKey,
    codecKeys: secrets.codecKeys,
    databaseUrl: pg.url('relayflow'),
    logLevel: opts.logLevel,
  };
  const bundle = await workflowBundle(o);
  const workers = [0, 1].map((n) =>
    nodePart(o, n ? 'worker-2' : 'worker-1', {
      name: `worker ${n + 1}`,
      script: 'workers/main.ts',
      env: childEnv(workerEnv(inputs, n, bundle), opts.relayflowEnv),
      logFile: join(logs, `worker-${n + 1}.log`),
      ready: /"msg":"worker ready"/,
    }),
  );
  const apis = [0, 1].map((n) =>
    nodePart(o, n ? 'api-2' : 'api-1', {
      name: `API ${n + 1}`,
      script: 'api/main.ts',
      env: childEnv(apiEnv(inputs, n), opts.relayflowEnv),
      logFile: join(logs, `api-${n + 1}.log`),
      ready: /Server listening/,
    }),
  );
  // One at a time: on 2 cores, starting both at once only makes each slower.
  for (const part of [...workers, ...apis]) {
    await part.start();
    opts.stops.add([part.name, () => part.stop()]);
  }
  const apiUrls = opts.ports.apis.map((p) => `http://127.0.0.1:${p}`);
  const front = await startFront({ targets: apiUrls, port: opts.ports.front, log: opts.say });
  opts.stops.add(['front', () => front.close()]);

  const config = loadConfig(childEnv(apiEnv(inputs, 0), opts.relayflowEnv));
  const sandboxUrl = `http://127.0.0.1:${opts.ports.sandbox}`;
  await pointSandboxAt({ sandboxUrl, publicUrl: front.url, mmsPostbackToken: config.api.mmsPostbackToken! });
  return { frontUrl: front.url, apiUrls, sandboxUrl, temporalAddress, apiKey: secrets.apiKey, config, postgres, temporal, sandbox, workers, apis };
}
