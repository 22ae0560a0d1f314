// The campaign activities: all on the send task queue, run only by workers that have the campaign store.
import type { CampaignActivities } from '../contract.js';
import type { PlatformClients } from '../../../platform/index.js';
import { CampaignWindows, type CampaignStore, type SuppressionStore } from '../../../store/index.js';
import { prepareCampaignActivity, type PrepareDeps } from './prepare.js';
import { sendChunkActivity } from './send-chunk.js';
import { senderFor } from './senders.js';
import { openSendWindows } from './send-windows.js';

export interface CampaignActivityDeps {
  store: CampaignStore;
  clients: Pick<PlatformClients, 'conversation' | 'mms' | 'provisioning'>;
  requestTimeoutMs: number;
  mmsThroughputPerSecond: number;
  conversationWebhook?: PrepareDeps['conversationWebhook'];
  /** The apps' suppression lists: a suppressed recipient is never sent to. */
  suppressions?: Pick<SuppressionStore, 'suppressedOf'>;
}

export function createCampaignActivities(deps: CampaignActivityDeps): CampaignActivities {
  const { store } = deps;
  const windows = new CampaignWindows(store.sql);
  return {
    prepareCampaign: prepareCampaignActivity(deps),
    sendChunk: sendChunkActivity({
      store,
      requestTimeoutMs: deps.requestTimeoutMs,
      senderFor: (input) => senderFor(deps.clients, input),
      ...(deps.suppressions ? { suppressions: deps.suppressions } : {}),
    }),
    async setCampaignRate({ campaignId, rate }) {
      await store.setRate(campaignId, rate);
    },
    async setCampaignHalt({ campaignId, halt }) {
      await store.setHalt(campaignId, halt);
    },
    cancelRemainingRecipients: async ({ campaignId }) => (await store.cancelPending(campaignId)) + (await windows.cancelWaiting(campaignId)),
    openSendWindows: (input) => openSendWindows(windows, input),
    async settleCampaign({ campaignId, close }) {
      const closed = close
        ? await store.closeInDoubt(campaignId, 'no answer and no postback: the platform may not have it; not sent again to avoid a duplicate')
        : 0;
      const counts = await store.counts(campaignId);
      return { unsettled: (counts?.byStatus.in_doubt ?? 0) + (counts?.byStatus.sending ?? 0), closed };
    },
  };
}
