// Builds a worker for relayflow's task queue: workflows from the prebuilt bundle when there is one.
import { readFileSync } from 'node:fs';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../processes/activities.js';
import { createPlatformClients } from '../platform/index.js';
import { ConfigError, DEFAULT_WORKER_CACHED_WORKFLOWS, DEFAULT_WORKER_WORKFLOW_TASK_SLOTS, type Config } from '../common/config.js';
import { createDataConverter } from '../common/data-converter.js';
import type { Logger } from '../common/logger.js';
import { startTracing, tracerOf } from '../common/tracing.js';
import { activityLogContext } from './activity-log-context.js';
import { countPlatformCall } from './metrics.js';
import { activityTracing, WORKER_SERVICE, workerClientInterceptors } from './tracing.js';
import { isVersionedBundle, workerBundlePath, workflowOptions } from './workflow-options.js';
import { EventSubscriptionStore, ProcessEventStore, ResourceLinkStore, SmsReceiptStore, type CampaignStore } from '../store/index.js';
import { EventDeliverer } from './events/deliverer.js';
import { AuditArchiver } from './audit/archiver.js';
import { AuditArchive } from '../store/audit-archive.js';
import { AesGcmPayloadCodec } from '../common/codec.js';
import { DEFAULT_AUDIT_SETTINGS } from '../common/config/audit.js';
import { sealerOf } from '../common/sealed-text.js';
import { createSendWorkers } from './send-worker.js';
import { PROVISIONING_WEBHOOK_PATH } from '../contracts/callbacks.js';
import { deploymentOptions, promote, workerVersion } from './versioning.js';

// Where the workflow code and its interceptors come from: workers/workflow-options.ts (shared with every replay).
export { WORKFLOWS_PATH } from './workflow-options.js';

export interface WorkerDeps {
  config: Pick<Config, 'temporal' | 'codecKeys' | 'platform' | 'taskQueue' | 'processes' | 'api' | 'tracing' | 'events'> &
    Partial<Pick<Config, 'workerCachedWorkflows' | 'workerWorkflowTaskSlots' | 'workerVersioning' | 'audit'>>;
  logger: Logger;
  connection?: NativeConnection;
  /** A prebuilt workflow bundle; defaults to RELAYFLOW_WORKFLOW_BUNDLE, then dist's bundle, then bundling at start. */
  workflowBundlePath?: string;
  /** With the campaign store, the worker also serves the send task queue (campaign activities) and links processes to their resources. */
  store?: CampaignStore;
  /** The base URL the platform reaches relayflow at, when not RELAYFLOW_PUBLIC_URL (tests: the API's address). */
  publicUrl?: string;
}

/** The workers of one process run and stop together: the main task queue, and the send queue when there is a store. */
export class WorkerGroup {
  constructor(
    readonly workers: readonly Worker[],
    /** Runs once the workers poll (a versioned worker makes its version current); its failure stops the group. */
    private readonly onPolling?: () => Promise<void>,
    /** Work beside the pollers (the event deliverer, the audit archiver): runs with them, stopped with them. */
    private readonly background: readonly { run(): Promise<void>; stop(): void }[] = [],
  ) {}

  async run(): Promise<void> {
    const stopOnFailure = (err: unknown) => {
      this.shutdown();
      throw err;
    };
    // One failing stops the others, so run() never returns with half the group still polling.
    await Promise.all([
      ...this.workers.map((w) => w.run().catch(stopOnFailure)),
      this.onPolling?.().catch(stopOnFailure),
      ...this.background.map((b) => b.run().catch(stopOnFailure)),
    ]);
  }

  shutdown(): void {
    for (const b of this.background) b.stop();
    for (const w of this.workers) if (w.getState() === 'RUNNING') w.shutdown();
  }

  getState() {
    return this.workers[0]!.getState();
  }
}

export async function createWorker({
  config,
  logger,
  connection,
  workflowBundlePath,
  store,
  publicUrl,
}: WorkerDeps): Promise<{ worker: WorkerGroup; connection: NativeConnection }> {
  const conn = connection ?? (await NativeConnection.connect(config.temporal.connectionOptions));
  // Traces only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT); a no-op otherwise.
  startTracing(WORKER_SERVICE, config.tracing, logger);
  const clients = createPlatformClients(config.platform, { logger, onCall: countPlatformCall, tracer: tracerOf(WORKER_SERVICE) });
  // Activities that signal workflows (provisioning inboxes) share the worker's connection.
  const temporal = new Client({
    connection: conn,
    namespace: config.temporal.namespace ?? 'default',
    dataConverter: createDataConverter(config.codecKeys),
    interceptors: workerClientInterceptors(),
  });
  // relayflow's public address, for its webhook in the customers' subprojects (the platform project's is wired at start).
  const webhookBase = publicUrl ?? (config.api.publicUrlExplicit ? config.api.publicUrl : undefined);
  const versioned = Boolean(config.workerVersioning);
  const bundle = workerBundlePath(workflowBundlePath, versioned);
  if (bundle) assertBundleFits(bundle, versioned);
  // A prebuilt bundle carries its workflow interceptors (workers/build-bundle.ts); otherwise they are bundled at start.
  const workflows = workflowOptions({ codecKeys: config.codecKeys, versioned, ...(bundle ? { bundle: { codePath: bundle } } : {}) });
  const version = config.workerVersioning ? workerVersion(config.workerVersioning, bundle) : undefined;
  const worker = await Worker.create({
    connection: conn,
    namespace: config.temporal.namespace ?? 'default',
    taskQueue: config.taskQueue,
    ...workflows,
    activities: createActivities({
      clients,
      temporal,
      logger,
      inboxIdleMs: config.processes.provisioning.inboxIdleMs,
      ...(webhookBase && config.api.provisioningWebhookSecret
        ? { provisioningWebhook: { target: `${webhookBase}${PROVISIONING_WEBHOOK_PATH}`, secret: config.api.provisioningWebhookSecret } }
        : {}),
      ...(store ? { links: new ResourceLinkStore(store.sql), receipts: new SmsReceiptStore(store.sql), events: new ProcessEventStore(store.sql) } : {}),
    }),
    interceptors: { activity: [activityTracing, activityLogContext], ...workflows.interceptors },
    // Bounded: each cached workflow slows every workflow task of the worker (common/config.ts).
    maxCachedWorkflows: config.workerCachedWorkflows ?? DEFAULT_WORKER_CACHED_WORKFLOWS,
    // A trade between verification latency and a failover's replays (common/config.ts).
    maxConcurrentWorkflowTaskExecutions: config.workerWorkflowTaskSlots ?? DEFAULT_WORKER_WORKFLOW_TASK_SLOTS,
    // On shutdown, running activities get this long to finish before they are cancelled.
    shutdownGraceTime: '20 seconds',
    ...(version ? deploymentOptions(version) : {}),
  });
  logger.info({ taskQueue: config.taskQueue, bundle: bundle ?? 'built at start', ...(version ? { version } : {}) }, 'worker ready');
  const onPolling = version && config.workerVersioning?.promote ? () => promote(temporal, version, logger) : undefined;
  if (!store) {
    logger.info('no store (RELAYFLOW_DATABASE_URL): this worker does not run campaign sends, and keeps and delivers no process events');
    return { worker: new WorkerGroup([worker], onPolling), connection: conn };
  }
  // The send workers poll other task queues, unversioned: their activities are not workflow code.
  const sends = await createSendWorkers({ config, logger, connection: conn, clients, store, ...(publicUrl ? { publicUrl } : {}) });
  const deliverer = new EventDeliverer(new EventSubscriptionStore(store.sql, sealerOf(config.codecKeys)), config.events, logger);
  // Closed processes' timelines into the store's archive, so the audit outlives Temporal's retention (workers/audit/).
  const codec = new AesGcmPayloadCodec(config.codecKeys);
  const archiver = new AuditArchiver(temporal, new AuditArchive(store.sql, codec), codec, config.audit ?? DEFAULT_AUDIT_SETTINGS, logger, config.taskQueue);
  return { worker: new WorkerGroup([worker, ...sends], onPolling, [deliverer, archiver]), connection: conn };
}

/** The SDK's marker for a bundle built without `failureConverterPath` (webpack's ignored-module comment). */
const DEFAULT_FAILURE_CONVERTER_MARK = '__temporal_custom_failure_converter (ignored)';

/**
 * A prebuilt bundle must carry relayflow's failure converter (workers/build-bundle.ts): one built without it
 * writes the messages and stacks of workflow failures to the history in plain text. And it must be built for the
 * worker's mode: an unversioned worker fails every workflow that names a versioning behaviour, and a versioned one
 * would pin nothing. Refuse it at start.
 */
export function assertBundleFits(bundlePath: string, versioned: boolean): void {
  const code = readFileSync(bundlePath, 'utf8');
  if (isVersionedBundle(code) !== versioned) {
    throw new ConfigError(
      'RELAYFLOW_WORKFLOW_BUNDLE',
      `${bundlePath} was built for ${versioned ? 'an unversioned' : 'a versioned'} worker, and RELAYFLOW_WORKER_VERSIONING is ${versioned ? 'on' : 'off'}: \`npm run build\` writes both (dist/workflow-bundle.js, dist/workflow-bundle-versioned.js)`,
    );
  }
  if (code.includes(DEFAULT_FAILURE_CONVERTER_MARK)) {
    throw new Error(
      `workflow bundle ${bundlePath} was built without relayflow's failure converter (failureConverterPath): rebuild it with \`npm run build\` (workers/build-bundle.ts)`,
    );
  }
}
