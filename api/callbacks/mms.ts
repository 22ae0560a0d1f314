// MMS postbacks, through the intake pipeline (intake.ts). Not signed by the platform (it names its source addresses at
// onboarding), so the postback URL carries a secret token, compared in constant time; a wrong one is a 404 that reveals
// nothing. A postback whose client-reference is a campaign token is folded into the store: it settles a send whose
// answer was lost (the platform has it), and its code gives the delivery outcome. The event ID is the tracking ID, the
// code and the timestamp (the platform gives no event ID; docs/mms-wire.md), claimed by the report's own insert. 503
// when the store cannot answer.
import type { FastifyPluginAsync } from 'fastify';
import { timingSafeEqualString } from '../../common/signing.js';
import { MMS_POSTBACK_PATH } from '../../contracts/callbacks.js';
import { parseCampaignMessageToken } from '../../processes/campaigns/contract.js';
import type { CampaignStore } from '../../store/index.js';
import { ApiError, notFound } from '../errors.js';
import { bodyHash, type IntakePipeline } from './intake.js';
import { storeCall } from './store-call.js';

/** Postback codes: what they mean for the recipient, and whether nothing later changes it. */
const CODES: Record<string, { status: string; final: boolean }> = {
  N101: { status: 'sent', final: false },
  N013: { status: 'transcoded', final: false },
  N102: { status: 'delivered', final: true },
  N202: { status: 'delivered_as_sms', final: true },
  N103: { status: 'expired', final: true },
  E101: { status: 'failed', final: true },
  E102: { status: 'failed', final: true },
  E202: { status: 'failed', final: true },
  E999: { status: 'failed', final: true },
};

interface Postback {
  ref: { campaignId: string; seq: number };
  code: string;
  meaning: { status: string; final: boolean };
  trackingId: string;
  eventTime: string;
  details?: string;
}

export interface MmsPostbackOptions {
  intakes: IntakePipeline;
  store?: CampaignStore;
  token: string | undefined;
}

export const mmsPostbackRoutes: FastifyPluginAsync<MmsPostbackOptions> = async (app, { intakes, store, token }) => {
  intakes.route<Postback>(app, {
    intake: 'mms',
    url: `${MMS_POSTBACK_PATH}/:token`,
    verify: (req) => {
      const given = (req.params as { token: string }).token;
      return token && timingSafeEqualString(given, token) ? { ok: true } : { ok: false, reason: 'wrong postback token' };
    },
    refuse: () => notFound('route'),
    read: (req, rawBody) => {
      const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      const ref = parseCampaignMessageToken(body['client-reference']);
      const code = typeof body.code === 'string' ? body.code : '';
      const meaning = CODES[code];
      if (!ref || !meaning)
        return { answer: { body: { ignored: ref ? `code ${code || 'missing'} is not a delivery status` : 'not a relayflow campaign message' } } };
      const trackingId = typeof body['tracking-id'] === 'string' ? body['tracking-id'] : '';
      const timestamp = typeof body.timestamp === 'string' && !Number.isNaN(Date.parse(body.timestamp)) ? body.timestamp : undefined;
      return {
        eventId: trackingId && timestamp ? `${trackingId}|${code}|${timestamp}` : bodyHash(rawBody),
        event: {
          ref,
          code,
          meaning,
          trackingId,
          eventTime: timestamp ?? new Date().toISOString(),
          ...(typeof body['status-details'] === 'string' ? { details: body['status-details'] } : {}),
        },
      };
    },
    // The report's insert claims the event ID in the same statement.
    dedupe: 'hand-off',
    handOff: async (p, { eventId }) => {
      if (!store) throw new ApiError(503, 'campaign_store_unavailable', 'the campaign store is not configured (RELAYFLOW_DATABASE_URL)');
      const recorded = await storeCall(() =>
        store.recordReport({
          campaignId: p.ref.campaignId,
          seq: p.ref.seq,
          intake: 'mms',
          eventId,
          status: p.meaning.status,
          final: p.meaning.final,
          eventTime: p.eventTime,
          ...(p.trackingId ? { platformId: p.trackingId } : {}),
          ...(p.meaning.status === 'failed' ? { reason: `${p.code}${p.details !== undefined ? `: ${p.details}` : ''}` } : {}),
        }),
      );
      if (!recorded.known) return { answer: { body: { ignored: 'unknown campaign recipient' } } };
      return recorded.duplicate ? { answer: { body: { duplicate: true } }, duplicate: true } : { answer: { body: { accepted: true } } };
    },
  });
};
