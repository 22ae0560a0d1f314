// Batch sends (areas C and D): what the API, the send activities and the campaign workflow share. The recipient
// list never travels in a payload: it lives in the campaign store (store/), referenced by `campaignId`.
import { defineUpdate } from '@temporalio/workflow';
import type { Region } from '../../common/config.js';
import type { TemplateChannel } from '../../common/wire/provisioning.js';
import type { MmsMessage } from '../../platform/mms/types.js';
import type { TrackedCarry } from '../../contracts/process-status.js';

export type CampaignKind = 'conversation-campaign' | 'mms-campaign';

/**
 * PREPARING (reading the app's limits, saving the MMS template), SENDING, PAUSED (by the caller, or because the
 * platform refused the campaign itself or the project's credit limit is reached: the reason says what to fix),
 * SETTLING (only when sends whose answer was lost wait for postbacks to confirm them; otherwise SENDING goes
 * straight to COMPLETED), then COMPLETED, CANCELLED or FAILED.
 */
export type CampaignState = 'SCHEDULED' | 'PREPARING' | 'SENDING' | 'WAITING_FOR_WINDOW' | 'PAUSED' | 'SETTLING' | 'COMPLETED' | 'CANCELLED' | 'FAILED';

export const CONVERSATION_CHANNELS = ['SMS', 'RCS', 'CHATA', 'CHATB', 'MMS'] as const;
export type ConversationChannel = (typeof CONVERSATION_CHANNELS)[number];

export interface ConversationContent {
  appId: string;
  /** The project the app lives in (a customer's subproject, with its bundle app); the platform project when absent. */
  projectId?: string;
  region: Region;
  channel: ConversationChannel;
  /** May hold `{{name}}` placeholders, filled per recipient from its params (in the store) when it is sent. */
  text?: string;
  mediaUrl?: string;
  template?: CampaignTemplate;
}

/**
 * A CHATA or CHATB template, resolved and found APPROVED when the campaign was created. Its name, language and
 * placeholders travel in the process's input; each recipient's values stay in the campaign store (they are PII).
 */
export interface CampaignTemplate {
  channel: TemplateChannel;
  /** The provisioning template's ID (read again before the first send) and its name (what the send names). */
  id: string;
  name: string;
  language: string;
  /** Placeholder names in the template's text, each needing a value per recipient. */
  placeholders: string[];
}

/** The MMS itself as the platform client takes it, and relayflow's own options. */
export interface MmsContent extends MmsMessage {
  /** Comma-separated numbers shown as group participants; never sent to. */
  toDisplayOnly?: string;
  /** savemms once, then sendsavedmms per recipient (transcoded once; the platform's advice for video). */
  useSavedTemplate?: boolean;
}

export interface CampaignSettings {
  /** Rows per chunk at least; a fast campaign's chunks hold chunkSeconds of sending (see chunkRowsFor). */
  chunkSize: number;
  chunkSeconds?: number;
  sendTaskQueue: string;
  /** Where the campaign's store operations run (prepare, rate, halt, settle): not behind the send queue's rate limit. */
  controlTaskQueue?: string;
  heartbeatTimeoutMs: number;
  inDoubtWaitMs: number;
  /** Continue-as-new after this many history events (besides Temporal's suggestion); tests set it low. */
  historyLimit?: number;
}

export interface CampaignInput {
  /** The store's ID of the campaign (a ULID; `rf:<campaignId>:<seq>` marks each message). */
  campaignId: string;
  kind: CampaignKind;
  conversation?: ConversationContent;
  mms?: MmsContent;
  /** Messages per second the caller asked for; capped at the platform's limit. */
  rate?: number;
  /** When to start sending (ISO time); until then the campaign is SCHEDULED and prepares nothing. */
  startAt?: string;
  /** No message from `from` until `to` in each recipient's local time ("HH:MM", wrapping past midnight). */
  quietHours?: QuietHours;
  settings: CampaignSettings;
  carried?: CampaignCarry;
}

export interface CampaignDetails {
  campaignId: string;
  /** Messages per second now, and the platform's limit it is capped at. */
  rate: number;
  platformRate: number;
  /** Recipient rows [0, end), in chunks of chunkSize, windowSize chunks at a time. */
  end: number;
  chunkSize: number;
  windowSize: number;
  chunksTotal: number;
  chunksDone: number;
  /** Send activity attempts that ended throttled (429 / E113) or failed and were retried. */
  throttledAttempts: number;
  retriedAttempts: number;
  savedMmsId?: string;
  webhook?: string;
  pausedBy?: 'caller' | 'platform';
  lastError?: string;
}

export interface CampaignCarry extends TrackedCarry<CampaignState, CampaignDetails, CampaignOperationOutcome> {
  /** Chunks not yet done, in the order they will run. */
  todo: number[];
}

export interface CampaignResult {
  state: CampaignState;
  campaignId: string;
}

// ---------------------------------------------------------------------------------------------
// Updates from the API
// ---------------------------------------------------------------------------------------------

export interface CampaignOperation {
  /** Idempotency-Key or a fresh ID: a repeated operation repeats its first answer. */
  operationId: string;
}

export interface CampaignOperationOutcome {
  accepted: boolean;
  state: CampaignState;
  reason?: string;
  rate?: number;
}

export const pauseCampaignUpdate = defineUpdate<CampaignOperationOutcome, [CampaignOperation & { reason?: string }]>('pauseCampaign');
export const resumeCampaignUpdate = defineUpdate<CampaignOperationOutcome, [CampaignOperation]>('resumeCampaign');
export const cancelCampaignUpdate = defineUpdate<CampaignOperationOutcome, [CampaignOperation & { reason?: string }]>('cancelCampaign');
export const setCampaignRateUpdate = defineUpdate<CampaignOperationOutcome, [CampaignOperation & { rate: number }]>('setCampaignRate');

// ---------------------------------------------------------------------------------------------
// Activities (implemented in processes/campaigns/activities/, all on the send task queue: only workers with the store run them)
// ---------------------------------------------------------------------------------------------

export interface PrepareCampaignInput {
  campaignId: string;
  kind: CampaignKind;
  conversation?: ConversationContent;
  mms?: MmsContent;
  /** Messages per second the caller asked for; prepare caps it at the platform's limit and sets it in the store. */
  rate?: number;
}

export interface PreparedCampaign {
  /** Recipient rows are [0, end). */
  end: number;
  /** The platform's limit in messages per second: the app's outbound rate, or the MMS account's throughput. */
  platformRate: number;
  /** The rate the chunks pace at, set in the store: the caller's, capped at platformRate (platformRate when none was asked). */
  rate: number;
  savedMmsId?: string;
  /** How delivery reports reach relayflow: `ensured <target>`, or why they do not. */
  webhook: string;
}

export interface SendChunkInput {
  campaignId: string;
  kind: CampaignKind;
  /** Recipient rows [from, to). */
  from: number;
  to: number;
  /** Chunks running at once: each sends at rate / windowSize (the rate is read from the store, so a change applies at once). */
  windowSize: number;
  conversation?: ConversationContent;
  mms?: MmsContent & { savedMmsId?: string };
}

export interface ChunkResult {
  from: number;
  to: number;
  sent: number;
  failed: number;
  inDoubt: number;
  /** Sends whose lost answer was settled by reading the platform (found: not sent again). */
  recovered: number;
  /** In-doubt sends the platform did not have, sent again. */
  resent: number;
  throttled: number;
}

/** The failure type of a send the platform refuses for the whole campaign (credentials, app, sender, content). */
export const CAMPAIGN_REFUSED = 'CampaignRefused';
/** The failure type of a send refused because the project is blocked for credit (403 BILLING_CREDIT_LIMIT_BREACHED). */
export const CAMPAIGN_BILLING_REFUSED = 'CampaignBillingRefused';
/** The failure type of a send activity stopped by a pause or cancel (the store's halt flag): its chunk runs again on resume. */
export const CAMPAIGN_HALTED = 'CampaignHalted';

export interface QuietHours {
  from: string;
  to: string;
}

/** "HH:MM" or "HH:MM:SS" as seconds after midnight. */
export function secondsOfDay(hhmm: string): number {
  const [h = 0, m = 0, s = 0] = hhmm.split(':').map(Number);
  return h * 3600 + m * 60 + s;
}

/** The recipients' send windows now: the chunks that have rows to send, and how many wait for their window. */
export interface SendWindows {
  chunks: number[];
  waiting: number;
  /** When a waiting recipient's window opens or an open one's closes next (ISO); absent when none waits or sends. */
  nextChangeAt?: string;
}

export interface CampaignActivities {
  prepareCampaign(input: PrepareCampaignInput): Promise<PreparedCampaign>;
  sendChunk(input: SendChunkInput): Promise<ChunkResult>;
  setCampaignRate(input: { campaignId: string; rate: number }): Promise<void>;
  /** Paused or cancelled: running send activities stop within a second; null lets them run again. */
  setCampaignHalt(input: { campaignId: string; halt: 'paused' | 'cancelled' | null }): Promise<void>;
  cancelRemainingRecipients(input: { campaignId: string }): Promise<number>;
  /** Unsettled = in-doubt sends still waiting for a postback; `close` reports them unconfirmed. */
  settleCampaign(input: { campaignId: string; close: boolean }): Promise<{ unsettled: number; closed: number }>;
  /** Quiet hours: rows inside their window are pending (sendable), the others waiting; which chunks hold pending rows. */
  openSendWindows(input: { campaignId: string; quietHours: QuietHours; chunkSize: number }): Promise<SendWindows>;
}

/** `rf:<campaignId>:<seq>`: put in message metadata (conversation) and client-reference (MMS). */
export const campaignMessageToken = (campaignId: string, seq: number) => `rf:${campaignId}:${seq}`;

export function parseCampaignMessageToken(token: unknown): { campaignId: string; seq: number } | undefined {
  const m = typeof token === 'string' ? /^rf:([0-9A-HJKMNP-TV-Z]{26}):(\d{1,9})$/.exec(token) : null;
  return m ? { campaignId: m[1]!, seq: Number(m[2]) } : undefined;
}
