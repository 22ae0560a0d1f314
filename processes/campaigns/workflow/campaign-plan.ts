// What a campaign sends: its details before the store has prepared it, the plan made from the store's answer
// (rate, window, rows per chunk), and one chunk's send input.
import type { CampaignDetails, CampaignInput, PreparedCampaign, SendChunkInput } from '../contract.js';
import { chunkRowsFor, windowSizeFor } from './chunks.js';

export function unpreparedDetails(input: CampaignInput): CampaignDetails {
  return {
    campaignId: input.campaignId,
    rate: 0,
    platformRate: 0,
    end: 0,
    chunkSize: input.settings.chunkSize,
    windowSize: 2,
    chunksTotal: 0,
    chunksDone: 0,
    throttledAttempts: 0,
    retriedAttempts: 0,
  };
}

/** Records prepareCampaign's answer: the rows, the rate it set in the store (capped at the platform's) and the chunks. */
export function planCampaign(d: CampaignDetails, input: CampaignInput, prepared: PreparedCampaign): void {
  const s = input.settings;
  d.end = prepared.end;
  d.platformRate = prepared.platformRate;
  d.rate = prepared.rate;
  d.windowSize = windowSizeFor(d.rate);
  d.chunkSize = chunkRowsFor(prepared.end, s.chunkSize, s.chunkSeconds ?? 0, d.rate, d.windowSize);
  d.chunksTotal = Math.ceil(prepared.end / d.chunkSize);
  d.webhook = prepared.webhook;
  if (prepared.savedMmsId) d.savedMmsId = prepared.savedMmsId;
}

export function chunkInput(input: CampaignInput, d: CampaignDetails, chunk: number): SendChunkInput {
  const from = chunk * d.chunkSize;
  return {
    campaignId: input.campaignId,
    kind: input.kind,
    from,
    to: Math.min(d.end, from + d.chunkSize),
    windowSize: d.windowSize,
    ...(input.conversation ? { conversation: input.conversation } : {}),
    ...(input.mms ? { mms: { ...input.mms, ...(d.savedMmsId ? { savedMmsId: d.savedMmsId } : {}) } } : {}),
  };
}
