// The cluster's Temporal server: its schemas set up (first run) or brought up to date with the SQL tool, the
// server started from the repo's config (deploy/temporal/docker.yaml, the file docker-compose.yml mounts), then
// the `default` namespace. Ports come from one base so a cluster can sit beside `npm start`'s dev server.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { runQuiet } from '../local-tools.js';
import { CLUSTER_DB_PASSWORD, CLUSTER_DB_USER } from './postgres.js';
import type { TemporalServerBin } from './temporal-server-bin.js';

/** The repo's server config: a directory and an environment name, as the server's --config and --env take them. */
export const TEMPORAL_CONFIG = { dir: 'deploy/temporal', env: 'docker', dynamicConfig: 'deploy/temporal/dynamicconfig.yaml' } as const;
const NAMESPACE_RETENTION = '3 days';
/** temporal.api.enums.v1.ArchivalState.ARCHIVAL_STATE_ENABLED */
const ARCHIVAL_ENABLED = 2;

/** The environment the config template reads (the same names the compose file's temporal service sets). */
export function temporalServerEnv(opts: { repo: string; pgPort: number; basePort: number; archivalDir?: string }): Record<string, string> {
  const p = (offset: number) => String(opts.basePort + offset);
  return {
    DB: 'postgres12',
    DB_PORT: String(opts.pgPort),
    POSTGRES_SEEDS: '127.0.0.1',
    POSTGRES_USER: CLUSTER_DB_USER,
    POSTGRES_PWD: CLUSTER_DB_PASSWORD,
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_GRPC_PORT: p(0),
    HISTORY_GRPC_PORT: p(1),
    MATCHING_GRPC_PORT: p(2),
    WORKER_GRPC_PORT: p(6),
    FRONTEND_HTTP_PORT: p(10),
    FRONTEND_MEMBERSHIP_PORT: p(100),
    HISTORY_MEMBERSHIP_PORT: p(101),
    MATCHING_MEMBERSHIP_PORT: p(102),
    WORKER_MEMBERSHIP_PORT: p(106),
    DYNAMIC_CONFIG_FILE_PATH: join(opts.repo, TEMPORAL_CONFIG.dynamicConfig),
    ...(opts.archivalDir ? { ARCHIVAL_DIR: opts.archivalDir } : {}),
  };
}

/** setup-schema (a no-op on a database past 0.0), then update-schema (a no-op when current): safe on every run. */
export async function applySchemas(bin: TemporalServerBin, opts: { pgPort: number; created: string[] }): Promise<string[]> {
  const done: string[] = [];
  for (const [db, dir] of [
    ['temporal', bin.schema.temporal],
    ['temporal_visibility', bin.schema.visibility],
  ] as const) {
    const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(opts.pgPort), '-u', CLUSTER_DB_USER, '--pw', CLUSTER_DB_PASSWORD, '--db', db];
    await runQuiet(bin.sqlTool, [...base, 'setup-schema', '-v', '0.0'], { timeoutMs: 120_000 });
    await runQuiet(bin.sqlTool, [...base, 'update-schema', '-d', dir], { timeoutMs: 300_000 });
    done.push(`${db} ${opts.created.includes(db) ? 'set up' : 'brought up to date'}`);
  }
  return done;
}

export interface ClusterTemporal {
  address: string;
  pid: number;
  namespace: 'created' | 'reused';
  stop(): Promise<void>;
  /** SIGKILL, as a crashed host would end it. Resolves once it has exited. */
  kill(): Promise<void>;
}

async function connectWhenUp(address: string, exited: () => boolean): Promise<Connection> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.workflowService.getSystemInfo({});
      return connection;
    } catch (err) {
      if (exited()) throw new Error('the Temporal server exited during start (see its log)');
      if (Date.now() > deadline) throw new Error(`the Temporal server did not answer at ${address}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * Registers `namespace` unless it exists, with Temporal's history archival on (the filestore provider, under
 * `archivalDir`): a namespace made before archival was configured has it turned on. Then waits until the frontend
 * serves it (its cache refreshes in seconds).
 */
async function ensureNamespace(connection: Connection, namespace: string, archivalDir: string | undefined): Promise<'created' | 'reused'> {
  let outcome: 'created' | 'reused' = 'reused';
  const archival = archivalDir ? { historyArchivalState: ARCHIVAL_ENABLED, historyArchivalUri: `file://${archivalDir}/history` } : {};
  try {
    const described = await connection.workflowService.describeNamespace({ namespace });
    if (archivalDir && described.config?.historyArchivalState !== ARCHIVAL_ENABLED)
      await connection.workflowService.updateNamespace({ namespace, config: archival });
  } catch {
    try {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION), ...archival });
      outcome = 'created';
    } catch (err) {
      if (!/already exists/i.test((err as Error).message)) throw err;
    }
  }
  for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 500))) {
    try {
      await connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
      return outcome;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`namespace ${namespace} is not served: ${(err as Error).message}`);
    }
  }
}

export async function startClusterTemporal(
  bin: TemporalServerBin,
  opts: { repo: string; pgPort: number; basePort: number; logFile: string; namespace: string; archivalDir?: string },
): Promise<ClusterTemporal> {
  const logFd = openSync(opts.logFile, 'a');
  const server = spawn(bin.server, ['--root', opts.repo, '--config', TEMPORAL_CONFIG.dir, '--env', TEMPORAL_CONFIG.env, '--allow-no-auth', 'start'], {
    env: { ...process.env, ...temporalServerEnv(opts) },
    stdio: ['ignore', logFd, logFd],
    detached: true, // its own process group: stopped by the script, after the workers
  });
  const exited = new Promise((r) => server.once('exit', r));
  const stop = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  const kill = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    server.kill('SIGKILL');
    await exited;
  };
  const address = `127.0.0.1:${opts.basePort}`;
  try {
    const connection = await connectWhenUp(address, () => server.exitCode !== null);
    try {
      return { address, pid: server.pid!, namespace: await ensureNamespace(connection, opts.namespace, opts.archivalDir), stop, kill };
    } finally {
      await connection.close();
    }
  } catch (err) {
    await stop();
    throw err;
  }
}
