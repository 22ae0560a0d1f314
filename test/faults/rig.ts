// The fault suite's relayflow, deployed as it runs in production: the API (api/main.ts) and the worker
// (workers/main.ts) in their own processes, so a test can SIGKILL them; a Temporal dev server of its own
// on a SQLite file, so a test can stop it and start it again on the same history; and the sandbox in this
// process, so a test can inject the platform's faults and count what the platform received.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ulid } from 'ulid';
import { generateCodecKey } from '../../common/codec.js';
import { loadConfig } from '../../common/config.js';
import { VERIFICATION_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { createPlatformClients, type PlatformClients } from '../../platform/index.js';
import { createSandbox, setSandboxVerificationConfig, type Sandbox } from '../../sandbox/index.js';
import { freePort, startDevServer, type DevServer } from '../../scripts/lib/dev-server.js';
import { waitForOutput } from '../helpers/child-output.js';
import { startPostgres } from '../helpers/postgres.js';

const FAULT_API_KEY = 'fault-suite-key-0123456789abcdef';

export interface Rig {
  apiUrl: string;
  sandbox: Sandbox;
  /** The platform as relayflow sees it, for counting what the sandbox holds. */
  platform: PlatformClients;
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>;
  startWorker(): Promise<void>;
  killWorker(): void;
  startApi(): Promise<void>;
  killApi(): void;
  /** Stops the Temporal server (SIGTERM) and starts it again on the same port and SQLite file. */
  restartTemporal(downMs: number): Promise<void>;
  sandboxControl(method: string, path: string, body?: unknown): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts a child and resolves once it prints a line matching `ready` (its JSON logs). */
async function spawnUntil(script: string, env: Record<string, string>, ready: RegExp, what: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  // A deadline for a stuck start: on a loaded machine (files side by side on two cores) a start can take a minute.
  await waitForOutput(child, ready, 120_000, what);
  return child;
}

export async function startRig(opts: { env?: Record<string, string>; sandbox?: Parameters<typeof createSandbox>[0] } = {}): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'relayflow-faults-'));
  const temporalPort = await freePort();
  const dbFilename = join(dir, 'temporal.db');
  // The three do not depend on one another: they start together (each stopped again if another fails).
  // The campaign store the API and the worker share is a PostgreSQL, as in production (campaigns need it).
  const parts = await Promise.allSettled([
    startDevServer({ dbFilename, port: temporalPort }),
    startPostgres(),
    createSandbox(opts.sandbox).then(async (sb) => (await sb.listen(), sb)),
  ] as const);
  const [startedTemporal, pg, sandbox] = parts.map((p) => (p.status === 'fulfilled' ? p.value : undefined)) as [
    DevServer?,
    Awaited<ReturnType<typeof startPostgres>>?,
    Sandbox?,
  ];
  const failed = parts.find((p) => p.status === 'rejected');
  if (failed || !startedTemporal || !pg || !sandbox) {
    await Promise.allSettled([startedTemporal?.stop(), pg?.stop(), sandbox?.close()]);
    await rm(dir, { recursive: true, force: true });
    throw (failed as PromiseRejectedResult | undefined)?.reason ?? new Error('the fault rig did not start');
  }
  let temporal: DevServer = startedTemporal;
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TEMPORAL_ADDRESS: temporal.address,
    RELAYFLOW_TASK_QUEUE: `faults-${ulid()}`,
    RELAYFLOW_API_KEYS: FAULT_API_KEY,
    RELAYFLOW_CODEC_KEYS: generateCodecKey('faults'),
    PLATFORM_SANDBOX_URL: sandbox.url,
    RELAYFLOW_API_HOST: '127.0.0.1',
    RELAYFLOW_API_PORT: String(apiPort),
    RELAYFLOW_PUBLIC_URL: apiUrl,
    RELAYFLOW_DATA_DIR: dir,
    RELAYFLOW_WORKER_METRICS_PORT: 'off',
    RELAYFLOW_LOG_LEVEL: 'info',
    RELAYFLOW_RATE_LIMIT_PER_MINUTE: '10000000',
    RELAYFLOW_SUBPROJECT_CHECK_INTERVAL_MS: '200',
    RELAYFLOW_DATABASE_URL: pg.url,
    ...opts.env,
  };
  const config = loadConfig(env);
  const platform = createPlatformClients(config.platform);
  await setSandboxVerificationConfig(sandbox.url, { callbackUrl: `${apiUrl}${VERIFICATION_CALLBACK_PATH}` });

  let worker: ChildProcess | undefined;
  let api: ChildProcess | undefined;
  const kill = (child: ChildProcess | undefined) => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };

  const rig: Rig = {
    apiUrl,
    sandbox,
    platform,
    async api(method, path, body, headers = {}) {
      const res = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${FAULT_API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    },
    async startWorker() {
      // Ready once the worker has said so and told the platform where relayflow is (the callback wiring).
      worker = await spawnUntil('workers/main.ts', env, /"msg":"worker ready"/, 'worker');
    },
    killWorker: () => kill(worker),
    async startApi() {
      api = await spawnUntil('api/main.ts', env, /Server listening/, 'API');
    },
    killApi: () => kill(api),
    async restartTemporal(downMs) {
      await temporal.stop();
      await sleep(downMs);
      temporal = await startDevServer({ dbFilename, port: temporalPort });
    },
    async sandboxControl(method, path, body) {
      const res = await fetch(`${sandbox.url}/_sandbox${path}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    },
    async close() {
      kill(worker);
      kill(api);
      await sandbox.close();
      await temporal.stop();
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    // One after the other: on a machine busy with other test files, two starting at once only slow each other.
    await rig.startApi();
    await rig.startWorker();
  } catch (err) {
    await rig.close();
    throw err;
  }
  return rig;
}
