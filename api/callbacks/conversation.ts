// Conversation delivery reports: the signature over the raw body first (HMAC-SHA256 of body.nonce.timestamp,
// a 5-minute window), then the nonce, refused when seen before (kept in the campaign store, so every API
// instance agrees). Any envelope is accepted: a delivery report whose metadata carries a campaign token is
// folded into that campaign's counts in the store (aggregated there, never signalled one by one into the
// workflow); anything else is acknowledged and ignored. 503 when the store cannot answer: the platform retries.
import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from '../../common/logger.js';
import { verifyConversationWebhook, CONVERSATION_WEBHOOK_HEADERS } from '../../common/signing.js';
import { CONVERSATION_WEBHOOK_PATH } from '../../contracts/callbacks.js';
import { parseCampaignMessageToken } from '../../contracts/campaigns.js';
import type { CampaignStore } from '../../store/index.js';
import { ApiError } from '../errors.js';
import { noteDuplicateCallback } from '../plugins/metrics.js';
import { storeCall } from './store-call.js';

const FINAL = new Set(['DELIVERED', 'READ', 'FAILED']);
const NONCE_KEEP_MS = 15 * 60_000;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export interface ConversationWebhookOptions {
  store?: CampaignStore;
  secret: string | undefined;
}

export const conversationWebhookRoutes: FastifyPluginAsync<ConversationWebhookOptions> = async (app, { store, secret }) => {
  app.post(CONVERSATION_WEBHOOK_PATH, { config: { auth: 'signature' }, schema: { hide: true } as never }, async (req) => {
    const log = req.log as unknown as Logger;
    const rawBody = req.rawBody ?? Buffer.alloc(0);
    if (!secret) throw new ApiError(401, 'bad_signature', 'no conversation webhook secret is configured (RELAYFLOW_CONVERSATION_WEBHOOK_SECRET)');
    const signed = verifyConversationWebhook({ headers: req.headers, rawBody, secret });
    if (!signed.ok) {
      log.warn({ reason: signed.reason, bytes: rawBody.length }, 'conversation webhook refused: bad or missing signature');
      throw new ApiError(401, 'bad_signature', `webhook signature rejected: ${signed.reason}`);
    }
    if (!store) throw new ApiError(503, 'campaign_store_unavailable', 'the campaign store is not configured (RELAYFLOW_DATABASE_URL)');
    const nonce = String(req.headers[CONVERSATION_WEBHOOK_HEADERS.nonce]);
    if (!(await storeCall(() => store.firstNonce(nonce, NONCE_KEEP_MS)))) {
      log.warn('conversation webhook refused: nonce seen before (replay)');
      throw new ApiError(401, 'bad_signature', 'webhook signature rejected: replayed_nonce');
    }
    const body = obj(req.body) ?? {};
    const report = obj(body.message_delivery_report);
    if (!report) return { ignored: 'not a delivery report' };
    const token = parseCampaignMessageToken(str(report.metadata) ?? str(body.message_metadata));
    if (!token) return { ignored: 'not a relayflow campaign message' };
    const status = str(report.status) ?? 'UNKNOWN';
    const messageId = str(report.message_id) ?? '';
    const eventTime = str(body.event_time) ?? str(body.accepted_time) ?? new Date().toISOString();
    const reason = str(obj(report.reason)?.code);
    const r = await storeCall(() =>
      store.recordReport({
        campaignId: token.campaignId,
        seq: token.seq,
        eventKey: `conversation|${messageId}|${status}|${eventTime}`,
        status: status.toLowerCase(),
        final: FINAL.has(status),
        eventTime,
        ...(messageId ? { platformId: messageId } : {}),
        ...(reason ? { reason } : {}),
      }),
    );
    if (!r.known) return { ignored: 'unknown campaign recipient' };
    if (r.duplicate) noteDuplicateCallback(req);
    return r.duplicate ? { duplicate: true } : { accepted: true };
  });
};
