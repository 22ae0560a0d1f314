// The worker of the send task queue: campaign activities only, and only where the campaign store is. Its
// task-queue rate limit is the platform's project budget in chunks per second, enforced by the Temporal server
// across every worker polling the queue, before any pacing of relayflow's own.
import type { NativeConnection } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { createCampaignActivities } from '../activities/campaigns/index.js';
import type { Config } from '../common/config.js';
import { createDataConverter } from '../common/data-converter.js';
import type { Logger } from '../common/logger.js';
import { CONVERSATION_WEBHOOK_PATH } from '../contracts/callbacks.js';
import type { PlatformClients } from '../platform/index.js';
import type { CampaignStore } from '../store/index.js';

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

export async function createSendWorker({ config, logger, connection, clients, store, publicUrl }: SendWorkerDeps): Promise<Worker> {
  const c = config.processes.campaigns;
  const base = publicUrl ?? (config.api.publicUrlExplicit ? config.api.publicUrl : undefined);
  const secret = config.api.conversationWebhookSecret;
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace ?? 'default',
    taskQueue: c.sendTaskQueue,
    activities: createCampaignActivities({
      store, clients, requestTimeoutMs: config.platform.requestTimeoutMs, mmsThroughputPerSecond: c.mmsThroughputPerSecond,
      ...(base && secret ? { conversationWebhook: { target: `${base}${CONVERSATION_WEBHOOK_PATH}`, secret } } : {}),
    }),
    dataConverter: createDataConverter(config.codecKeys),
    maxConcurrentActivityTaskExecutions: CONCURRENT_CHUNKS,
    // A chunk is at least chunkSize messages: the project's requests per second, in chunks per second, for all
    // workers together. (A fast campaign's longer chunks start less often; each sends at most its share of its rate.)
    maxTaskQueueActivitiesPerSecond: c.projectRequestsPerSecond / c.chunkSize,
    shutdownGraceTime: '20 seconds',
  });
  logger.info({ taskQueue: c.sendTaskQueue, chunksPerSecond: c.projectRequestsPerSecond / c.chunkSize }, 'send worker ready');
  return worker;
}
