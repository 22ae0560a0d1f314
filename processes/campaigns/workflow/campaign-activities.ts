// The campaign's activities: the store's control operations on their own queue, and chunk sends on the send queue.
import { ActivityCancellationType, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import { CAMPAIGN_HALTED, CAMPAIGN_REFUSED, type CampaignActivities, type CampaignSettings } from '../contract.js';

/** The activities run with the send options: the only ones that heartbeat (the control activities set no heartbeat timeout). */
const SENDS = ['sendChunk'] as const satisfies readonly (keyof CampaignActivities)[];
type Sends = Pick<CampaignActivities, (typeof SENDS)[number]>;

function sendOptions(s: Pick<CampaignSettings, 'sendTaskQueue' | 'heartbeatTimeoutMs'>) {
  return {
    taskQueue: s.sendTaskQueue,
    // A chunk takes chunkSize / (rate / window) seconds plus back-off; the heartbeat, not this, detects a dead worker.
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: s.heartbeatTimeoutMs,
    // Pause must not return while a chunk may still send: wait until the activity has stopped.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2, nonRetryableErrorTypes: [CAMPAIGN_REFUSED, CAMPAIGN_HALTED] },
  } satisfies ActivityOptions;
}

export function campaignActivities(s: CampaignSettings) {
  const control = proxyActivities<CampaignActivities>({
    taskQueue: s.controlTaskQueue ?? s.sendTaskQueue,
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2 },
  });
  return { control, sends: proxyActivities<Sends>(sendOptions(s)) };
}

/** The campaign's activity types that heartbeat, each with its heartbeat timeout in ms (what bench/action-counts.ts bounds). */
export function heartbeatingActivities(s: Pick<CampaignSettings, 'sendTaskQueue' | 'heartbeatTimeoutMs'>): Record<string, number> {
  const { heartbeatTimeout } = sendOptions(s);
  return Object.fromEntries(SENDS.map((type) => [type, heartbeatTimeout]));
}
