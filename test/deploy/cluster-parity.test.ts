// docker-compose.yml and `npm run cluster` (scripts/cluster.ts) describe one topology: the same Temporal server
// version and config file, the same schema steps, the same processes, and the same environment for the workers
// and the API instances, apart from the few differences listed here with their reasons.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { CLUSTER_DATABASES } from '../../scripts/lib/cluster/postgres.js';
import { TEMPORAL_CONFIG, temporalServerEnv } from '../../scripts/lib/cluster/temporal-server.js';
import { TEMPORAL_SERVER_VERSION } from '../../scripts/lib/cluster/temporal-server-bin.js';
import { apiEnv, CLUSTER_NAMESPACE, CLUSTER_PROCESSES, clusterPorts, relayflowEnv, sandboxEnv, workerEnv } from '../../scripts/lib/cluster/topology.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const text = (file: string) => readFileSync(join(root, file), 'utf8');

interface ComposeService {
  image?: string;
  command?: string[] | string;
  environment?: Record<string, unknown>;
  volumes?: string[];
  deploy?: { replicas?: number };
}
const services = (parse(text('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> }).services;
const keysOf = (e: Record<string, unknown> | undefined) => Object.keys(e ?? {}).sort();
const commandText = (s: ComposeService) => (Array.isArray(s.command) ? s.command.join(' ') : (s.command ?? ''));
const servicesRunning = (entry: string) => Object.entries(services).filter(([, s]) => commandText(s) === `node ${entry}`);
const replicas = (s: ComposeService) => s.deploy?.replicas ?? 1;

const ports = clusterPorts({});
const inputs = { ports, apiKeys: 'k', codecKeys: 'c', databaseUrl: 'postgres://temporal:temporal@127.0.0.1:5532/relayflow', logLevel: 'info' };
const without = (keys: string[], drop: string[]) => keys.filter((k) => !drop.includes(k));

describe('docker-compose.yml and npm run cluster', () => {
  it('run the same Temporal server version, server and admin tools alike', () => {
    assert.equal(services.temporal?.image, `temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    for (const name of ['temporal-schema', 'temporal-namespace'])
      assert.equal(services[name]?.image, `temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`, name);
    assert.ok(!Object.values(services).some((s) => s.image?.startsWith('temporalio/auto-setup')), 'auto-setup is deprecated: server + admin-tools');
  });

  it('run the server from the one config file in the repo, with the dynamic config beside it', () => {
    const config = `${TEMPORAL_CONFIG.dir}/${TEMPORAL_CONFIG.env}.yaml`;
    assert.ok(existsSync(join(root, config)), `${config} is missing`);
    const mounts = services.temporal?.volumes ?? [];
    // The image runs `temporal-server --env docker start` from /etc/temporal/config; the script passes --env docker too.
    assert.ok(mounts.includes(`./${config}:/etc/temporal/config/${TEMPORAL_CONFIG.env}.yaml:ro`), `temporal must mount ${config}`);
    const dynamic = mounts.find((m) => m.startsWith(`./${TEMPORAL_CONFIG.dynamicConfig}:`));
    assert.ok(dynamic, `temporal must mount ${TEMPORAL_CONFIG.dynamicConfig}`);
    assert.equal(services.temporal?.environment?.DYNAMIC_CONFIG_FILE_PATH, dynamic.split(':')[1]);
  });

  it("set the server's database variables the config reads, under the same names", () => {
    const template = text(`${TEMPORAL_CONFIG.dir}/${TEMPORAL_CONFIG.env}.yaml`);
    const read = new Set([...template.matchAll(/env "([A-Z_]+)"/g)].map((m) => m[1]));
    // As `npm run cluster` starts it (scripts/lib/cluster/start.ts), history archival on.
    const scriptEnv = temporalServerEnv({ repo: root, pgPort: ports.postgres, basePort: ports.temporal, archivalDir: '/tmp/archival' });
    for (const name of Object.keys(scriptEnv)) assert.ok(read.has(name), `the script sets ${name}, which the config does not read`);
    const composeEnv = services.temporal?.environment ?? {};
    for (const name of keysOf(composeEnv)) assert.ok(name in scriptEnv, `compose sets ${name} for the server; the script does not`);
    assert.equal(composeEnv.DB, scriptEnv.DB);
    assert.equal(composeEnv.POSTGRES_USER, scriptEnv.POSTGRES_USER);
  });

  it('apply the same schema steps: setup-schema from 0.0, then update-schema from the v12 versioned directories', () => {
    const compose = commandText(services['temporal-schema']!);
    const script = text('scripts/lib/cluster/temporal-server.ts');
    for (const step of ['setup-schema', 'update-schema']) {
      assert.ok(compose.includes(step), `compose's schema step lacks ${step}`);
      assert.ok(script.includes(`'${step}'`), `the script lacks ${step}`);
    }
    assert.match(compose, /setup-schema -v 0\.0/);
    for (const dir of ['temporal', 'visibility']) assert.ok(compose.includes(`/schema/postgresql/v12/${dir}/versioned`), `compose: ${dir} schema`);
    for (const db of CLUSTER_DATABASES.filter((d) => d.startsWith('temporal'))) assert.ok(compose.includes(db), `compose's schema step lacks ${db}`);
    assert.match(text('deploy/postgres/create-relayflow-db.sql'), /CREATE DATABASE relayflow;/);
    assert.ok(CLUSTER_DATABASES.includes('relayflow'));
  });

  it('run the same processes: postgres, temporal, its schema step, the sandbox, two workers, two APIs and a front', () => {
    const count = (entry: string) => servicesRunning(entry).reduce((n, [, s]) => n + replicas(s), 0);
    assert.equal(count('dist/workers/main.js'), CLUSTER_PROCESSES.worker);
    assert.equal(count('dist/api/main.js'), CLUSTER_PROCESSES.api);
    assert.equal(count('dist/sandbox/main.js'), CLUSTER_PROCESSES.sandbox);
    assert.equal(count('dist/scripts/lib/cluster/front.js'), CLUSTER_PROCESSES.front);
    assert.ok(services.postgresql && services.temporal && services['temporal-schema'], 'postgresql, temporal, temporal-schema');
    assert.equal(CLUSTER_PROCESSES.postgres + CLUSTER_PROCESSES.temporal + CLUSTER_PROCESSES['temporal-schema'], 3);
    // The front spreads over every API instance, on the port each listens on.
    const targets = String(servicesRunning('dist/scripts/lib/cluster/front.js')[0]![1].environment?.FRONT_TARGETS).split(',');
    const apis = servicesRunning('dist/api/main.js').map(([name, s]) => `http://${name}:${String(s.environment?.RELAYFLOW_API_PORT)}`);
    assert.deepEqual(targets.sort(), apis.sort());
    assert.equal(ports.apis.length, CLUSTER_PROCESSES.api);
  });

  it('give the workers and the APIs the same environment, but for the differences of one host against containers', () => {
    const composeWorker = keysOf(services.worker?.environment);
    const composeApis = servicesRunning('dist/api/main.js').map(([, s]) => keysOf(s.environment));
    for (const keys of composeApis) assert.deepEqual(keys, composeApis[0], 'every API instance gets the same variables');
    // Containers: metrics bound beyond the container, the image's prebuilt bundle at its default path, the web UI's
    // origin (compose runs the UI). One host: each worker its own metrics port, one bundle built for both.
    assert.deepEqual(
      without(composeWorker, ['RELAYFLOW_WORKER_METRICS_HOST']),
      without(keysOf(workerEnv(inputs, 0, 'b')), ['RELAYFLOW_WORKER_METRICS_PORT', 'RELAYFLOW_WORKFLOW_BUNDLE']),
    );
    assert.deepEqual(without(composeApis[0]!, ['RELAYFLOW_CODEC_CORS_ORIGINS']), keysOf(apiEnv(inputs, 0)));
    assert.deepEqual(
      keysOf(sandboxEnv(ports, 'd', 'info')).filter((k) => k !== 'SANDBOX_DATA_DIR'),
      keysOf(services.sandbox?.environment),
    );
    assert.equal(services.worker?.environment?.TEMPORAL_NAMESPACE, CLUSTER_NAMESPACE);
    const shared = relayflowEnv(inputs);
    assert.equal(new URL(shared.RELAYFLOW_DATABASE_URL!).pathname, new URL(String(services.worker?.environment?.RELAYFLOW_DATABASE_URL)).pathname);
    // The platform reaches relayflow through the front, not through one instance.
    assert.equal(shared.RELAYFLOW_PUBLIC_URL, `http://127.0.0.1:${ports.front}`);
    assert.notEqual(apiEnv(inputs, 0).RELAYFLOW_API_PORT, apiEnv(inputs, 1).RELAYFLOW_API_PORT);
  });
});
