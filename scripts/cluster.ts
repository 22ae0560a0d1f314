// `npm run cluster`: the production topology on this machine, without Docker. PostgreSQL (data under
// .relayflow/cluster/), Temporal's schemas, the Temporal server from the repo's config (deploy/temporal/), the
// namespace and search attributes, the sandbox, two workers, two API instances and a front that spreads requests
// over the live instances. Each step is waited for; Ctrl-C stops everything in reverse order; a second run reuses
// the data. docker-compose.yml describes the same topology (test/deploy/cluster-parity.test.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { loadConfig } from '../common/config.js';
import { createLogger } from '../common/logger.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../common/search-attributes.js';
import { ensureSearchAttributes } from '../workers/search-attributes.js';
import { workflowBundleOptions } from '../workers/workflow-options.js';
import { startFront } from './lib/cluster/front.js';
import { startNodeProcess } from './lib/cluster/node-process.js';
import { CLUSTER_DATABASES, startClusterPostgres } from './lib/cluster/postgres.js';
import { pointSandboxAt } from './lib/cluster/sandbox-urls.js';
import { applySchemas, startClusterTemporal } from './lib/cluster/temporal-server.js';
import { findTemporalServerBin, TEMPORAL_SERVER_VERSION } from './lib/cluster/temporal-server-bin.js';
import { apiEnv, CLUSTER_NAMESPACE, clusterPorts, sandboxEnv, workerEnv, type ClusterEnvInputs } from './lib/cluster/topology.js';
import { devSecrets } from './lib/dev-secrets.js';
import { secondsSince } from './lib/local-tools.js';
import { StopList } from './lib/cluster/stop-list.js';

const env = process.env;
const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dir = resolve(env.RELAYFLOW_CLUSTER_DIR ?? join(repo, '.relayflow', 'cluster'));
const logs = join(dir, 'logs');
const logLevel = env.RELAYFLOW_LOG_LEVEL ?? 'info';
const logger = createLogger({ name: 'relayflow-cluster', level: logLevel });
const say = (msg: string) => process.stdout.write(`${msg}\n`);
const stops = new StopList();

/** Registers relayflow's search attributes (as every worker also does at start) and says whether any were missing. */
async function searchAttributes(address: string): Promise<string> {
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

async function main(): Promise<void> {
  const started = Date.now();
  const ports = clusterPorts(env);
  await mkdir(logs, { recursive: true });
  const secrets = await devSecrets(dir);

  const bin = await findTemporalServerBin({ log: say });
  say(`Temporal server ${TEMPORAL_SERVER_VERSION}: ${bin.source}`);

  const pg = await startClusterPostgres({ dir: join(dir, 'postgres'), port: ports.postgres, log: say });
  stops.add(['PostgreSQL', () => pg.stop()]);
  const reusedDbs = CLUSTER_DATABASES.filter((db) => !pg.created.includes(db));
  say(
    `PostgreSQL on 127.0.0.1:${pg.port} (${pg.source}): data ${pg.data}; databases ${[pg.created.length ? `created ${pg.created.join(', ')}` : '', reusedDbs.length ? `reused ${reusedDbs.join(', ')}` : ''].filter(Boolean).join('; ')}`,
  );

  say(`Temporal schemas: ${(await applySchemas(bin, { pgPort: pg.port, created: pg.created })).join(', ')}`);
  const temporal = await startClusterTemporal(bin, {
    repo,
    pgPort: pg.port,
    basePort: ports.temporal,
    logFile: join(logs, 'temporal.log'),
    namespace: CLUSTER_NAMESPACE,
  });
  stops.add(['Temporal server', () => temporal.stop()]);
  say(`Temporal server at ${temporal.address} (config deploy/temporal/docker.yaml); namespace ${CLUSTER_NAMESPACE} ${temporal.namespace}`);
  say(`search attributes: ${await searchAttributes(temporal.address)}`);

  const childEnv = (own: Record<string, string>) => ({ ...(env as Record<string, string>), ...own });
  const sandbox = await startNodeProcess({
    name: 'sandbox',
    script: 'sandbox/main.ts',
    env: childEnv(sandboxEnv(ports, join(dir, 'sandbox'), logLevel)),
    logFile: join(logs, 'sandbox.log'),
    ready: /sandbox listening on/,
  });
  stops.add(['sandbox', () => sandbox.stop()]);

  const inputs: ClusterEnvInputs = { ports, apiKeys: secrets.apiKey, codecKeys: secrets.codecKeys, databaseUrl: pg.url('relayflow'), logLevel };
  say('bundling the workflows once for both workers (webpack)...');
  const bundling = Date.now();
  // As workers/build-bundle.ts builds it, without webpack's module list (warnings only).
  const bundle = join(dir, 'workflow-bundle.js');
  await writeFile(bundle, (await bundleWorkflowCode({ ...workflowBundleOptions(), logger: new DefaultLogger('WARN') })).code);
  say(`workflow bundle ${bundle} (${secondsSince(bundling)} s)`);

  // One at a time: on 2 cores, starting both at once only makes each slower.
  for (const n of [0, 1]) {
    const worker = await startNodeProcess({
      name: `worker ${n + 1}`,
      script: 'workers/main.ts',
      env: childEnv(workerEnv(inputs, n, bundle)),
      logFile: join(logs, `worker-${n + 1}.log`),
      ready: /"msg":"worker ready"/,
    });
    stops.add([`worker ${n + 1}`, () => worker.stop()]);
  }
  for (const n of [0, 1]) {
    const api = await startNodeProcess({
      name: `API ${n + 1}`,
      script: 'api/main.ts',
      env: childEnv(apiEnv(inputs, n)),
      logFile: join(logs, `api-${n + 1}.log`),
      ready: /Server listening/,
    });
    stops.add([`API ${n + 1}`, () => api.stop()]);
  }
  const apis = ports.apis.map((p) => `http://127.0.0.1:${p}`);
  const front = await startFront({ targets: apis, port: ports.front, log: say });
  stops.add(['front', () => front.close()]);

  const config = loadConfig(childEnv(apiEnv(inputs, 0)));
  const sandboxUrl = `http://127.0.0.1:${ports.sandbox}`;
  await pointSandboxAt({ sandboxUrl, publicUrl: front.url, mmsPostbackToken: config.api.mmsPostbackToken! });

  say(
    [
      '',
      `relayflow cluster is ready (${secondsSince(started)} s)`,
      `  front         ${front.url} (round-robin over the API instances ${apis.join(', ')})`,
      `  API docs      ${front.url}/docs`,
      `  API key       ${secrets.apiKey} (kept in ${join(dir, 'api-key')})`,
      `  Temporal      ${temporal.address}, namespace ${CLUSTER_NAMESPACE} (PostgreSQL 127.0.0.1:${pg.port})`,
      `  sandbox       ${sandboxUrl} (its state kept in ${join(dir, 'sandbox')})`,
      `  workers       2, metrics at ${ports.workerMetrics.map((p) => `http://127.0.0.1:${p}/metrics`).join(', ')}`,
      `  data, logs    ${dir}, ${logs}`,
      '',
      'Try it (README.md, "Try it"), in another shell:',
      `  export API=${front.url} SBX=${sandboxUrl} KEY=${secrets.apiKey}`,
      '',
      'Ctrl-C stops everything (the front, the APIs, the workers after their tasks, the sandbox, Temporal, PostgreSQL).',
    ].join('\n'),
  );
}

// Settles when the start is over, whether it finished or failed; a failure is reported unless a signal caused it.
const started = main().then(
  () => true,
  (err: unknown) => {
    if (!stops.stopping) process.stderr.write(`the cluster could not start: ${(err as Error).stack ?? String(err)}\n`);
    return false;
  },
);
void started.then(async (ok) => {
  if (ok || stops.stopping) return;
  await stops.stopAll(() => undefined);
  process.exit(1);
});

// npm may pass one Ctrl-C on more than once: the first signal stops, later ones are not a second request. A signal
// during the start ends it at the next step (StopList.add refuses), then everything started so far is stopped.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stops.stopping) return;
    stops.stopping = true;
    say(`\n${signal}: stopping the cluster...`);
    void started.then(() => stops.stopAll(say)).then(() => process.exit(0));
  });
}
