// `npm run cluster`: the production topology on this machine, without Docker. PostgreSQL (data under
// .relayflow/cluster/), Temporal's schemas, the Temporal server from the repo's config (deploy/temporal/), the
// namespace and search attributes, the sandbox, two workers, two API instances and a front that spreads requests
// over the live instances. Each step is waited for; Ctrl-C stops everything in reverse order; a second run reuses
// the data. docker-compose.yml describes the same topology (test/deploy/cluster-parity.test.ts).
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../common/logger.js';
import { startCluster } from './lib/cluster/start.js';
import { StopList } from './lib/cluster/stop-list.js';
import { CLUSTER_NAMESPACE, clusterPorts } from './lib/cluster/topology.js';
import { secondsSince } from './lib/local-tools.js';

const env = process.env;
const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dir = resolve(env.RELAYFLOW_CLUSTER_DIR ?? join(repo, '.relayflow', 'cluster'));
const logLevel = env.RELAYFLOW_LOG_LEVEL ?? 'info';
const logger = createLogger({ name: 'relayflow-cluster', level: logLevel });
const say = (msg: string) => process.stdout.write(`${msg}\n`);
const stops = new StopList();

async function main(): Promise<void> {
  const started = Date.now();
  const ports = clusterPorts(env);
  const cluster = await startCluster({ repo, dir, ports, logLevel, logger, say, stops, baseEnv: env as Record<string, string> });
  const logs = join(dir, 'logs');
  say(
    [
      '',
      `relayflow cluster is ready (${secondsSince(started)} s)`,
      `  front         ${cluster.frontUrl} (round-robin over the API instances ${cluster.apiUrls.join(', ')})`,
      `  API docs      ${cluster.frontUrl}/docs`,
      `  API key       ${cluster.apiKey} (kept in ${join(dir, 'api-key')})`,
      `  Temporal      ${cluster.temporalAddress}, namespace ${CLUSTER_NAMESPACE} (PostgreSQL 127.0.0.1:${ports.postgres})`,
      `  sandbox       ${cluster.sandboxUrl} (its state kept in ${join(dir, 'sandbox')})`,
      `  workers       2, metrics at ${ports.workerMetrics.map((p) => `http://127.0.0.1:${p}/metrics`).join(', ')}`,
      `  data, logs    ${dir}, ${logs}`,
      '',
      'Try it (README.md, "Try it"), in another shell:',
      `  export API=${cluster.frontUrl} SBX=${cluster.sandboxUrl} KEY=${cluster.apiKey}`,
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
