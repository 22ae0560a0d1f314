// Before the first send: the platform's limit for the campaign (the app's outbound rate, or the MMS account's
// throughput) and the rate the chunks pace at, set in the store, the delivery-report wiring, and for a
// saved-template MMS campaign the one savemms (kept in the store, so a retried activity never saves twice).
import { ApplicationFailure } from '@temporalio/common';
import { CAMPAIGN_REFUSED, type CampaignTemplate, type PreparedCampaign, type PrepareCampaignInput } from '../contract.js';
import { PlatformAuthError, PlatformBillingError, PlatformNotFoundError, PlatformValidationError, type PlatformClients } from '../../../platform/index.js';
import type { CampaignStore } from '../../../store/index.js';
import { mmsMessageOf } from './senders.js';

const REFUSALS = [PlatformNotFoundError, PlatformAuthError, PlatformBillingError, PlatformValidationError];

export interface PrepareDeps {
  store: CampaignStore;
  clients: Pick<PlatformClients, 'conversation' | 'mms' | 'provisioning'>;
  mmsThroughputPerSecond: number;
  /** Where the platform sends conversation delivery reports, and their secret; absent: not wired (no public URL). */
  conversationWebhook?: { target: string; secret: string };
}

/**
 * The template was APPROVED when the campaign was created; read again before the first send, so one paused,
 * disabled or deleted since fails the campaign with its state rather than sending what the channel will refuse.
 */
async function stillApproved(deps: PrepareDeps, t: CampaignTemplate, projectId: string | undefined): Promise<void> {
  const found = await deps.clients.provisioning.forProject(projectId).templates(t.channel).get(t.id);
  if (found.state !== 'APPROVED')
    throw ApplicationFailure.create({
      type: CAMPAIGN_REFUSED,
      message: `the ${t.channel} template ${t.name} (${t.language}) is ${found.state}, not APPROVED: nothing was sent`,
      nonRetryable: true,
    });
}

export function prepareCampaignActivity(deps: PrepareDeps) {
  return async function prepareCampaign(input: PrepareCampaignInput): Promise<PreparedCampaign> {
    const prepared = await limitsAndWiring(deps, input);
    // Set here rather than by an activity of its own: the same write, one action fewer (a retry writes it again).
    const rate = Math.min(input.rate ?? prepared.platformRate, prepared.platformRate);
    // Campaigns sending on one app (the MMS account) at once share its rate (CampaignStore.reserveSends).
    const paceKey = input.conversation ? `conversation:${input.conversation.region}:${input.conversation.appId}` : 'mms';
    await deps.store.setPacing(input.campaignId, { rate, paceKey, platformRate: prepared.platformRate });
    return { ...prepared, rate };
  };
}

/** The rows, the platform's limit, the delivery-report wiring and the saved MMS; the platform's refusals fail the campaign. */
async function limitsAndWiring(deps: PrepareDeps, input: PrepareCampaignInput): Promise<Omit<PreparedCampaign, 'rate'>> {
  const end = await deps.store.end(input.campaignId);
  try {
    if (input.conversation) {
      const c = input.conversation;
      const conversation = deps.clients.conversation.forProject(c.projectId);
      const app = await conversation.getApp(c.region, c.appId);
      if (c.template) await stillApproved(deps, c.template, c.projectId);
      let webhook = 'not wired: set RELAYFLOW_PUBLIC_URL (and RELAYFLOW_CONVERSATION_WEBHOOK_SECRET) so delivery reports reach relayflow';
      if (deps.conversationWebhook) {
        // Replies too: an opt-out word puts its sender on the app's suppression list (api/callbacks/conversation.ts).
        await conversation.webhooks.ensure(c.region, c.appId, deps.conversationWebhook.target, deps.conversationWebhook.secret, [
          'MESSAGE_DELIVERY',
          'MESSAGE_INBOUND',
        ]);
        webhook = `ensured ${deps.conversationWebhook.target}`;
      }
      return { end, platformRate: app.outboundRate, webhook };
    }
    const m = input.mms!;
    const webhook = "postbacks arrive at the account's postback URL set at onboarding (<public URL>/callbacks/mms/<token>)";
    if (!m.useSavedTemplate) return { end, platformRate: deps.mmsThroughputPerSecond, webhook };
    const campaign = await deps.store.getCampaign(input.campaignId);
    const savedMmsId = campaign?.savedMmsId ?? (await deps.store.rememberSavedMms(input.campaignId, (await deps.clients.mms.save(mmsMessageOf(m))).mmsId));
    return { end, platformRate: deps.mmsThroughputPerSecond, savedMmsId, webhook };
  } catch (err) {
    // Nothing can be sent until someone fixes these: the campaign fails with the platform's words (a billing block
    // here too: pausing before the plan exists is not built; a send's billing refusal pauses).
    if (REFUSALS.some((c) => err instanceof c)) {
      throw ApplicationFailure.create({ type: CAMPAIGN_REFUSED, message: (err as Error).message, nonRetryable: true });
    }
    throw err;
  }
}
