// A campaign's descriptor, the same for every channel but for its name and style: one workflow type (`campaign`)
// sends over the channel the style names.
import { defineKind } from '../descriptor.js';
import type { CampaignState } from './contract.js';
import { CAMPAIGN_STATES } from './states.js';

export const campaignKind = <C extends 'conversation' | 'mms'>(style: C) =>
  defineKind<CampaignState>()({
    kind: `${style}-campaign`,
    family: 'campaigns',
    workflowType: 'campaign',
    versioning: 'pinned',
    /** Keyed by the caller's campaign key (CAMPAIGN_KEY_PATTERN), or a ULID when none is given. */
    id: (projectId: string, key: string) => `${style}-campaign:${projectId}:${key}`,
    states: CAMPAIGN_STATES,
    updates: ['pauseCampaign', 'resumeCampaign', 'cancelCampaign', 'setCampaignRate'],
    collection: { path: '/v1/campaigns', tag: 'campaigns', styles: [style], listsAll: true },
  });
