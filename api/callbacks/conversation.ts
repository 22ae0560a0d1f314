// Conversation delivery reports and replies, through the intake pipeline (intake.ts): the signature over the raw body
// (HMAC-SHA256 of body.nonce.timestamp, a 5-minute window). Any envelope is accepted: a delivery report whose metadata
// carries a campaign token is folded into that campaign's counts in the store (aggregated there, never signalled one
// by one into the workflow); a reply (MESSAGE_INBOUND) may opt its sender out or back in (conversation-inbound.ts);
// anything else is acknowledged and ignored. A report's event ID is its message, status and event time (the platform
// gives no event ID; docs/conversation-wire.md), claimed by the report's own insert; a replay of a signed delivery
// carries the same body, so it is that event's repeat. A reply's event ID is its message ID, claimed by the pipeline.
// 503 when the store cannot answer: the platform retries.
import type { FastifyPluginAsync } from 'fastify';
import { verifyConversationWebhook } from '../../common/signing.js';
import { CONVERSATION_WEBHOOK_PATH } from '../../contracts/callbacks.js';
import { parseCampaignMessageToken } from '../../processes/campaigns/contract.js';
import type { ConsentSettings } from '../../common/config/consent.js';
import type { CampaignStore, SuppressionStore } from '../../store/index.js';
import { ApiError } from '../errors.js';
import { handReply, readInbound, type InboundReply } from './conversation-inbound.js';
import { bodyHash, type IntakePipeline } from './intake.js';
import { storeCall } from './store-call.js';

const FINAL = new Set(['DELIVERED', 'READ', 'FAILED']);

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

interface Report {
  kind: 'report';
  token: { campaignId: string; seq: number };
  status: string;
  messageId: string;
  eventTime: string;
  reason?: string;
}

type Reply = { kind: 'reply'; reply: InboundReply };

export interface ConversationWebhookOptions {
  intakes: IntakePipeline;
  store?: CampaignStore;
  /** The apps' suppression lists, which replies change; without them a reply answers 503 (the platform retries). */
  suppressions?: SuppressionStore;
  consent: ConsentSettings;
  secret: string | undefined;
}

export const conversationWebhookRoutes: FastifyPluginAsync<ConversationWebhookOptions> = async (app, { intakes, store, suppressions, consent, secret }) => {
  intakes.route<Report | Reply>(app, {
    intake: 'conversation',
    url: CONVERSATION_WEBHOOK_PATH,
    verify: (req, rawBody) => {
      if (!secret) return { ok: false, reason: 'no conversation webhook secret is configured (RELAYFLOW_CONVERSATION_WEBHOOK_SECRET)' };
      return verifyConversationWebhook({ headers: req.headers, rawBody, secret });
    },
    read: (req, rawBody) => {
      const body = obj(req.body) ?? {};
      if (body.message !== undefined) {
        const inbound = readInbound(body, consent);
        if ('ignored' in inbound) return { answer: { body: { ignored: inbound.ignored } } };
        // Nothing of the reply is written but the list's row: the pipeline's claim is its dedupe.
        return { eventId: inbound.eventId, event: { kind: 'reply', reply: inbound.reply }, dedupe: 'pipeline' };
      }
      const report = obj(body.message_delivery_report);
      if (!report) return { answer: { body: { ignored: 'not a delivery report' } } };
      const token = parseCampaignMessageToken(str(report.metadata) ?? str(body.message_metadata));
      if (!token) return { answer: { body: { ignored: 'not a relayflow campaign message' } } };
      const status = str(report.status) ?? 'UNKNOWN';
      const messageId = str(report.message_id);
      const eventTime = str(body.event_time) ?? str(body.accepted_time);
      const reason = str(obj(report.reason)?.code);
      return {
        eventId: messageId && eventTime ? `${messageId}|${status}|${eventTime}` : bodyHash(rawBody),
        event: { kind: 'report', token, status, messageId: messageId ?? '', eventTime: eventTime ?? new Date().toISOString(), ...(reason ? { reason } : {}) },
      };
    },
    // The report's insert claims the event ID in the same statement.
    dedupe: 'hand-off',
    handOff: async (r, { eventId }) => {
      if (r.kind === 'reply') {
        if (!suppressions) throw new ApiError(503, 'campaign_store_unavailable', 'the suppression lists need the store (RELAYFLOW_DATABASE_URL)');
        const done = await storeCall(() => handReply(r.reply, suppressions));
        return { answer: { body: { accepted: true, ...done } } };
      }
      if (!store) throw new ApiError(503, 'campaign_store_unavailable', 'the campaign store is not configured (RELAYFLOW_DATABASE_URL)');
      const recorded = await storeCall(() =>
        store.recordReport({
          campaignId: r.token.campaignId,
          seq: r.token.seq,
          intake: 'conversation',
          eventId,
          status: r.status.toLowerCase(),
          final: FINAL.has(r.status),
          eventTime: r.eventTime,
          ...(r.messageId ? { platformId: r.messageId } : {}),
          ...(r.reason ? { reason: r.reason } : {}),
        }),
      );
      if (!recorded.known) return { answer: { body: { ignored: 'unknown campaign recipient' } } };
      return recorded.duplicate ? { answer: { body: { duplicate: true } }, duplicate: true } : { answer: { body: { accepted: true } } };
    },
  });
};
