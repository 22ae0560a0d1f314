// The workers of the campaign activities, only where the campaign store is: the send task queue (chunks), whose
// task-queue rate limit is the platform's project budget in chunks per second, enforced by the Temporal server
// across every worker polling the queue, before any pacing of relayflow's own; and the control queue (prepare,
// rate, halt, settle), not rate-limited, so a pause or cancel never waits behind chunk starts.
import type { NativeConnection } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { createCampaignActivities } from '../processes/campaigns/activities/index.js';
import type { Config } from '../common/config.js';
import { activityLogContext } from './activity-log-context.js';
import { activityTracing } from './tracing.js';
import { createDataConverter } from '../common/data-converter.js';
import type { Logger } from '../common/logger.js';
import { CONVERSATION_WEBHOOK_PATH } from '../contracts/callbacks.js';
import type { PlatformClients } from '../platform/index.js';
import { SuppressionStore, type CampaignStore } from '../store/index.js';
import { sealerOf } from '../common/sealed-text.js';
import { subjectHasher } from '../common/subject-hash.js';

export interface SendWorkerDeps {
  config: Pick<Config, 'temporal' | 'codecKeys' | 'platform' | 'processes' | 'api'>;
  logger: Logger;
  connection: NativeConnection;
  clients: PlatformClients;
  store: CampaignStore;
  /** The base URL the platform reaches relayflow at; default: RELAYFLOW_PUBLIC_URL when it was set. */
  publicUrl?: string;
}

/** Chunks one worker runs at once (each paces itself; most of their time is spent waiting for the pace). */
const CONCURRENT_CHUNKS = 16;

export async function createSendWorkers({ config, logger, connection, clients, store, publicUrl }: SendWorkerDeps): Promise<Worker[]> {
  const c = config.processes.campaigns;
  const base = publicUrl ?? (config.api.publicUrlExplicit ? config.api.publicUrl : undefined);
  const secret = config.api.conversationWebhookSecret;
  const { sendChunk, ...control } = createCampaignActivities({
    store,
    clients,
    requestTimeoutMs: config.platform.requestTimeoutMs,
    mmsThroughputPerSecond: c.mmsThroughputPerSecond,
    suppressions: new SuppressionStore(store.sql, sealerOf(config.codecKeys), subjectHasher(config.codecKeys)),
    ...(base && secret ? { conversationWebhook: { target: `${base}${CONVERSATION_WEBHOOK_PATH}`, secret } } : {}),
  });
  const common = {
    connection,
    namespace: config.temporal.namespace ?? 'default',
    dataConverter: createDataConverter(config.codecKeys),
    shutdownGraceTime: '20 seconds',
    interceptors: { activity: [activityTracing, activityLogContext] },
  };
  const sends = await Worker.create({
    ...common,
    taskQueue: c.sendTaskQueue,
    activities: { sendChunk },
    maxConcurrentActivityTaskExecutions: CONCURRENT_CHUNKS,
    // A chunk is at least chunkSize messages: the project's requests per second, in chunks per second, for all
    // workers together. (A fast campaign's longer chunks start less often; each sends at most its share of its rate.)
    maxTaskQueueActivitiesPerSecond: c.projectRequestsPerSecond / c.chunkSize,
  });
  const controls = await Worker.create({ ...common, taskQueue: c.controlTaskQueue, activities: control });
  logger.info(
    { taskQueue: c.sendTaskQueue, controlTaskQueue: c.controlTaskQueue, chunksPerSecond: c.projectRequestsPerSecond / c.chunkSize },
    'send workers ready',
  );
  return [sends, controls];
}
