// What `npm run cluster` runs, in one place: its ports, its processes and the environment each relayflow process
// gets. docker-compose.yml describes the same topology; test/deploy/cluster-parity.test.ts holds the two together.
import type { Env } from '../local-tools.js';

export interface ClusterPorts {
  postgres: number;
  /** The Temporal frontend; the server's other ports follow it (scripts/lib/cluster/temporal-server.ts). */
  temporal: number;
  sandbox: number;
  front: number;
  apis: number[];
  workerMetrics: number[];
}

/**
 * The Temporal server keeps its membership ports (base + 100..106) in a PostgreSQL smallint column: a base above
 * this fails at start with "out of range for type smallint" (seen with 1.29.1).
 */
export const MAX_TEMPORAL_BASE_PORT = 32_767 - 106;
/** The ports the Temporal server takes from its base (temporalServerEnv, scripts/lib/cluster/temporal-server.ts). */
export const TEMPORAL_PORT_OFFSETS = [0, 1, 2, 6, 10, 100, 101, 102, 106] as const;

/** Defaults apart from `npm start`'s (7233, 3000, 4010, 9464), so both can run at once; RELAYFLOW_CLUSTER_* move them. */
export function clusterPorts(env: Env = process.env): ClusterPorts {
  const port = (name: string, fallback: number, max = 65535) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > max) throw new Error(`${name} must be a port (1 to ${max}), got "${raw}"`);
    return n;
  };
  const front = port('RELAYFLOW_CLUSTER_PORT', 3100);
  const metrics = port('RELAYFLOW_CLUSTER_WORKER_METRICS_PORT', 9565);
  return {
    postgres: port('RELAYFLOW_CLUSTER_PG_PORT', 5532),
    temporal: port('RELAYFLOW_CLUSTER_TEMPORAL_PORT', 7433, MAX_TEMPORAL_BASE_PORT),
    sandbox: port('RELAYFLOW_CLUSTER_SANDBOX_PORT', 4110),
    front,
    apis: [front + 1, front + 2],
    workerMetrics: [metrics, metrics + 1],
  };
}

export const CLUSTER_NAMESPACE = 'default';

/** The processes, with their counts: the compose file has a service (or replicas) for each. */
export const CLUSTER_PROCESSES = { postgres: 1, 'temporal-schema': 1, temporal: 1, sandbox: 1, worker: 2, api: 2, front: 1 } as const;

export interface ClusterEnvInputs {
  ports: ClusterPorts;
  apiKeys: string;
  codecKeys: string;
  databaseUrl: string;
  logLevel: string;
}

/** What every worker and API instance shares (compose: x-relayflow-env). The platform reaches relayflow through the front. */
export function relayflowEnv(i: ClusterEnvInputs): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: `127.0.0.1:${i.ports.temporal}`,
    TEMPORAL_NAMESPACE: CLUSTER_NAMESPACE,
    RELAYFLOW_CODEC_KEYS: i.codecKeys,
    // The worker's configuration requires them too (loadConfig reads one set for both roles).
    RELAYFLOW_API_KEYS: i.apiKeys,
    PLATFORM_SANDBOX_URL: `http://127.0.0.1:${i.ports.sandbox}`,
    RELAYFLOW_PUBLIC_URL: `http://127.0.0.1:${i.ports.front}`,
    RELAYFLOW_LOG_LEVEL: i.logLevel,
    RELAYFLOW_DATABASE_URL: i.databaseUrl,
  };
}

export function apiEnv(i: ClusterEnvInputs, n: number): Record<string, string> {
  return { ...relayflowEnv(i), RELAYFLOW_API_HOST: '127.0.0.1', RELAYFLOW_API_PORT: String(i.ports.apis[n]) };
}

/** Both workers share a host here, so each serves its metrics on a port of its own; they share one prebuilt bundle. */
export function workerEnv(i: ClusterEnvInputs, n: number, bundle: string): Record<string, string> {
  return {
    ...relayflowEnv(i),
    RELAYFLOW_WORKER_METRICS_PORT: String(i.ports.workerMetrics[n]),
    RELAYFLOW_WORKFLOW_BUNDLE: bundle,
    // As a deployment runs: a new build takes new processes, pinned ones finish on theirs (docs/upgrades.md).
    RELAYFLOW_WORKER_VERSIONING: 'on',
  };
}

export function sandboxEnv(ports: ClusterPorts, dataDir: string, logLevel: string): Record<string, string> {
  return { SANDBOX_HOST: '127.0.0.1', SANDBOX_PORT: String(ports.sandbox), SANDBOX_DATA_DIR: dataDir, RELAYFLOW_LOG_LEVEL: logLevel };
}
