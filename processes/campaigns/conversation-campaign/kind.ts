// A batch send over the conversation area, message by message at the campaign's rate.
import type { CampaignState } from '../contract.js';
import { defineKind } from '../../descriptor.js';
import { CAMPAIGN_STATES } from '../states.js';

export const conversationCampaign = defineKind<CampaignState>()({
  kind: 'conversation-campaign',
  family: 'campaigns',
  workflowType: 'campaign',
  versioning: 'pinned',
  /** Keyed by the caller's campaign key (CAMPAIGN_KEY_PATTERN), or a ULID when none is given. */
  id: (projectId: string, key: string) => `conversation-campaign:${projectId}:${key}`,
  states: CAMPAIGN_STATES,
  signals: [],
  updates: ['pauseCampaign', 'resumeCampaign', 'cancelCampaign', 'setCampaignRate'],
  collection: { path: '/v1/campaigns', tag: 'campaigns', styles: ['conversation'], listsAll: true },
});
