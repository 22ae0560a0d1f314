// A whole relayflow in one test process: the sandbox, a worker on its own task queue and the API, against
// the real Temporal dev server that `npm test` started (TEMPORAL_ADDRESS).
import type { Client } from '@temporalio/client';
import { Runtime, type NativeConnection } from '@temporalio/worker';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { after, before } from 'node:test';
import { ulid } from 'ulid';
import { createPlatformClients } from '../../platform/index.js';
import { buildApp } from '../../api/app.js';
import { apiClientInterceptors } from '../../api/temporal-actor.js';
import { MMS_POSTBACK_PATH, PROVISIONING_WEBHOOK_PATH, VERIFICATION_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { AesGcmPayloadCodec, generateCodecKey } from '../../common/codec.js';
import { loadConfig, type Config } from '../../common/config.js';
import { createLogger, type Logger } from '../../common/logger.js';
import { connectClient } from '../../common/temporal.js';
import { createSandbox, setSandboxVerificationConfig, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import { installRuntime } from '../../workers/runtime.js';
import { createWorker, type WorkerGroup } from '../../workers/worker.js';
import { openCampaignStore, type CampaignStore } from '../../store/index.js';
import { sharedDatabaseUrl } from './shared-postgres.js';
import { versionedBundleFile } from './workflow-bundles.js';
import { freshStoreSnapshot } from './store-snapshot.js';
import { pollGaps } from './deadline.js';

/** Business keys must differ between runs and files that share one Temporal server. */
export const uniqueName = (prefix: string) => `${prefix}-${ulid().slice(-8).toLowerCase()}`;

export const TEST_API_KEY = 'test-api-key-0123456789abcdef';

export interface Harness {
  config: Config;
  apiUrl: string;
  /** The sandbox's address (and, when the harness started it, the sandbox itself). */
  sandbox: Pick<Sandbox, 'url' | 'close'>;
  client: Client;
  app: FastifyInstance;
  /** The campaign store the API and the worker share (in-memory PGlite, or RELAYFLOW_DATABASE_URL from opts.env). */
  store: CampaignStore;
  /** app.inject with the test API key. */
  api(opts: InjectOptions): Promise<LightMyRequestResponse>;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  /** Polls the process until it reaches `state` (or fails the test after timeoutMs). */
  waitForState(processId: string, state: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Polls the process's view until `ok` holds on the workflow's own answer (or fails the test, naming `what`). */
  waitForView<V extends Record<string, unknown>>(processId: string, ok: (v: V) => boolean, what: string, timeoutMs: number): Promise<V>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  sandbox?: SandboxOptions;
  /** A sandbox already running elsewhere (its own process, as the platform is): used instead of one in this process. */
  sandboxUrl?: string;
  env?: Record<string, string>;
  /** Start without a worker (tests that start it later). */
  withoutWorker?: boolean;
  /** The harness's worker leaves the send task queue to others (worker processes a test starts and kills). */
  withoutSendWorker?: boolean;
  /** The API's, worker's and Temporal runtime's logger (the runtime's only for the first harness of a file). */
  logger?: Logger;
}

export { setSandboxVerificationConfig };

const defaultLogger = createLogger({ name: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const logger = opts.logger ?? defaultLogger;
  if (!process.env.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is not set: run the tests with `npm test`');
  installRuntime(logger, { handleSignals: false });
  // What is open so far, closed in reverse if the harness fails half-way (so a failed `before` cannot
  // leave the test process hanging on an open server or connection).
  const opened: Array<() => Promise<unknown>> = [];
  try {
    return await assemble(opts, logger, opened);
  } catch (err) {
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw err;
  }
}

/**
 * The sandbox's subproject readiness for tests that do not test it: a subproject still becomes usable only
 * after a wait (its processes wait it out too), but not after the platform-like 5 s most files would only sit out.
 * A test that needs the wait passes sandbox.subprojectReadyAfterMs itself.
 */
const TEST_SUBPROJECT_READY_AFTER_MS = 250;

/** Like Promise.all, but waits for every part to settle, so a part still opening when another fails is in `opened` and closed too. */
async function allOpened<T extends readonly unknown[]>(parts: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(parts as unknown as Array<Promise<unknown>>);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

async function assemble(opts: HarnessOptions, logger: Logger, opened: Array<() => Promise<unknown>>): Promise<Harness> {
  // The sandbox and the store do not depend on each other: they start together.
  const [sandbox, store] = await allOpened<[Pick<Sandbox, 'url' | 'close'>, CampaignStore]>([openSandbox(opts, opened), openStore(opts, opened)]);
  const config = loadConfig({
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    RELAYFLOW_TASK_QUEUE: `test-${ulid()}`,
    RELAYFLOW_API_KEYS: TEST_API_KEY,
    RELAYFLOW_CODEC_KEYS: generateCodecKey('test'),
    PLATFORM_SANDBOX_URL: sandbox.url,
    // Relayflow takes a subproject as usable as long after its creation as this sandbox makes it wait.
    RELAYFLOW_SUBPROJECT_USABLE_AFTER_MS: String(opts.sandbox?.subprojectReadyAfterMs ?? TEST_SUBPROJECT_READY_AFTER_MS),
    // Tests, benchmarks and the fuzzer send many requests a minute with one key; test/api/access.test.ts tests the limit.
    RELAYFLOW_RATE_LIMIT_PER_MINUTE: '10000000',
    // Event receivers in tests listen on this machine.
    RELAYFLOW_EVENTS_ALLOW_PRIVATE_URLS: 'on',
    // The worker's archiver looks once at its start, then not for an hour: every 30 s it would replay each closed process
    // to ask its status (test/workers/audit-archiver.test.ts and the audit tests set their own interval).
    RELAYFLOW_AUDIT_ARCHIVE_INTERVAL_MS: '3600000',
    ...opts.env,
  });
  const client: Client = await connectClient(
    config,
    apiClientInterceptors(() => client),
  );
  opened.push(() => client.connection.close());
  const app = await buildApp({ config, client, codec: new AesGcmPayloadCodec(config.codecKeys), logger, store });
  opened.push(() => app.close());
  // Listening, so the sandbox can deliver callbacks to it.
  const apiUrl = await app.listen({ host: '127.0.0.1', port: 0 });

  let current: { worker: WorkerGroup; connection: NativeConnection; running: Promise<void> } | undefined;
  // A versioned worker (RELAYFLOW_WORKER_VERSIONING=on in opts.env) runs the versioned entry's bundle.
  const bundle = config.workerVersioning ? await versionedBundleFile() : process.env.RELAYFLOW_WORKFLOW_BUNDLE;
  const startWorker = async () => {
    if (current) return;
    const { worker, connection } = await createWorker({
      config,
      logger,
      workflowBundlePath: bundle,
      publicUrl: apiUrl,
      ...(opts.withoutSendWorker ? {} : { store }),
    });
    current = { worker, connection, running: worker.run() };
  };
  const stopWorker = async () => {
    if (!current) return;
    current.worker.shutdown();
    await current.running;
    await current.connection.close();
    current = undefined;
  };
  // The worker (loading its bundle is most of its start) starts while the sandbox learns where to call the
  // API: nothing runs on the fresh task queue before the harness is returned.
  opened.push(() => stopWorker());
  await allOpened([opts.withoutWorker ? Promise.resolve() : startWorker(), wireSandbox(sandbox.url, apiUrl, config, logger)]);

  const api = (o: InjectOptions) => app.inject({ ...o, headers: { authorization: `Bearer ${TEST_API_KEY}`, ...o.headers } });

  async function waitForView<V extends Record<string, unknown>>(processId: string, ok: (v: V) => boolean, what: string, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    const pause = pollGaps();
    let last: V | undefined;
    while (Date.now() < deadline) {
      const res = await api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}` });
      if (res.statusCode === 200) {
        last = res.json<V>();
        // A view from the search attributes (no worker answered in time, e.g. on a loaded CI machine) has the state but
        // no details: callers read the details, so only the workflow's own answer counts.
        if (last.statusSource !== 'search-attributes' && ok(last)) return last;
      }
      await pause();
    }
    // Until the deadline: a closed run's state attributes are final, but its query needs a worker to replay it, which a
    // loaded CI machine's did not do within 3 s for 20 s and more. A caller that reads the details still fails on them.
    if (last && last.statusSource === 'search-attributes' && (last.execution as { status?: string } | undefined)?.status !== 'RUNNING' && ok(last)) return last;
    throw new Error(`${processId}: ${what} not seen within ${timeoutMs} ms; last seen: ${JSON.stringify(last)}`);
  }
  return {
    config,
    apiUrl,
    sandbox,
    client,
    app,
    store,
    api,
    startWorker,
    stopWorker,
    waitForState: (processId, state, timeoutMs = 30_000) => waitForView(processId, (v) => v.state === state, `state ${state}`, timeoutMs),
    waitForView,
    async close() {
      // The app first, while the worker still answers: its close waits for the handlers still running (a request the
      // browser gave up on; api/plugins/drain.ts), which would otherwise wait out their deadline on a query.
      await app.close();
      await stopWorker();
      // The Temporal connection last: a call still running on a closed channel throws outside any promise.
      await sandbox.close();
      await store.sql.close();
      await client.connection.close();
    },
  };
}

async function openSandbox(opts: HarnessOptions, opened: Array<() => Promise<unknown>>): Promise<Pick<Sandbox, 'url' | 'close'>> {
  if (opts.sandboxUrl) return { url: opts.sandboxUrl, close: async () => undefined };
  const sandbox = await createSandbox({ subprojectReadyAfterMs: TEST_SUBPROJECT_READY_AFTER_MS, ...opts.sandbox });
  opened.push(() => sandbox.close());
  await sandbox.listen();
  return sandbox;
}

/** RELAYFLOW_DATABASE_URL from opts.env (as loadConfig reads it), else in-memory PGlite from the shared fresh copy. */
async function openStore(opts: HarnessOptions, opened: Array<() => Promise<unknown>>): Promise<CampaignStore> {
  // A test's own database, else one of the run's shared server, else an embedded PGlite store.
  const url = opts.env?.RELAYFLOW_DATABASE_URL?.trim() || (await sharedDatabaseUrl());
  const store = await openCampaignStore({ url, dataDir: '', inMemory: !url, embeddedFrom: url ? undefined : await freshStoreSnapshot() });
  opened.push(() => store.sql.close());
  return store;
}

/** The sandbox's callbacks go to the listening API: verification results, provisioning webhooks, MMS postbacks. */
async function wireSandbox(sandboxUrl: string, apiUrl: string, config: Config, logger: Logger): Promise<void> {
  await setSandboxVerificationConfig(sandboxUrl, { callbackUrl: `${apiUrl}${VERIFICATION_CALLBACK_PATH}` });
  // Provisioning webhooks (every trigger), signed with the configured secret.
  await createPlatformClients(config.platform, { logger }).provisioning.webhooks.ensure(
    `${apiUrl}${PROVISIONING_WEBHOOK_PATH}`,
    config.api.provisioningWebhookSecret!,
  );
  // MMS postbacks: the account's postback URL (set at onboarding on the real platform), fast retries for tests.
  const postbacks = await fetch(`${sandboxUrl}/_sandbox/mms/account`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ postbackUrl: `${apiUrl}${MMS_POSTBACK_PATH}/${config.api.mmsPostbackToken}`, postbackRetryGapMs: 200 }),
  });
  if (!postbacks.ok) throw new Error(`sandbox refused the MMS postback URL: ${postbacks.status} ${await postbacks.text()}`);
}

/**
 * Writes the Temporal runtime's log lines now (the SDK's, such as "Activity failed", the workflows' and core's):
 * the runtime holds each at least 100 ms to put them in order (the SDK's NativeLogCollector, flushed by a timer),
 * so a test reading the last ones soon after they happened must ask, or miss them on a loaded machine. They reach
 * the logger of the process's first harness: a file calling this runs in a process of its own (scripts/lib/test-pool.ts).
 */
export async function flushRuntimeLogs(): Promise<void> {
  Runtime._instance?.flushLogs();
  // A stream's 'data' event may come a tick after the write.
  await new Promise((r) => setImmediate(r));
}

/**
 * A harness for the enclosing describe block (or file): started before its tests, then `ready` runs (wiring,
 * settings), closed after them. The value stands for that harness: read it only inside hooks and tests. `opts`
 * may be a function, read when the harness starts (for values an earlier hook sets).
 */
export function useHarness(opts: HarnessOptions | (() => HarnessOptions) = {}, ready?: (h: Harness) => Promise<unknown>): Harness {
  let started: Harness | undefined;
  before(async () => {
    started = await startHarness(typeof opts === 'function' ? opts() : opts);
    await ready?.(started);
  });
  after(async () => started?.close());
  return new Proxy({} as Harness, { get: (_target, key) => Reflect.get(started!, key) as unknown });
}
