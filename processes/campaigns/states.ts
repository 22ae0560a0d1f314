// What a campaign's states mean, the same for every channel.
import type { CampaignState } from './contract.js';
import { everyState, type KindStates } from '../descriptor.js';

export const CAMPAIGN_STATES: KindStates<CampaignState> = {
  all: everyState<CampaignState>()(['SCHEDULED', 'PREPARING', 'SENDING', 'WAITING_FOR_WINDOW', 'PAUSED', 'SETTLING', 'COMPLETED', 'CANCELLED', 'FAILED']),
  initial: 'PREPARING',
  final: ['COMPLETED', 'CANCELLED', 'FAILED'],
  succeeded: ['COMPLETED'],
  failed: ['FAILED'],
  // Paused by staff: someone resumes or cancels it.
  waiting: ['PAUSED'],
};
