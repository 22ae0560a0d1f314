// MMS postbacks: not signed by the platform (it names its source addresses at onboarding), so the postback
// URL carries a secret token, compared in constant time; a wrong one is a 404 that reveals nothing. A postback
// whose client-reference is a campaign token is folded into the store: it settles a send whose answer was
// lost (the platform has it), and its code gives the delivery outcome. 503 when the store cannot answer.
import type { FastifyPluginAsync } from 'fastify';
import { timingSafeEqualString } from '../../common/signing.js';
import { MMS_POSTBACK_PATH } from '../../contracts/callbacks.js';
import { parseCampaignMessageToken } from '../../contracts/campaigns.js';
import type { CampaignStore } from '../../store/index.js';
import { ApiError, notFound } from '../errors.js';
import { noteDuplicateCallback } from '../plugins/metrics.js';
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

export interface MmsPostbackOptions {
  store?: CampaignStore;
  token: string | undefined;
}

export const mmsPostbackRoutes: FastifyPluginAsync<MmsPostbackOptions> = async (app, { store, token }) => {
  app.post<{ Params: { token: string } }>(`${MMS_POSTBACK_PATH}/:token`, { config: { auth: 'signature' }, schema: { hide: true } as never }, async (req) => {
    if (!token || !timingSafeEqualString(req.params.token, token)) throw notFound('route');
    if (!store) throw new ApiError(503, 'campaign_store_unavailable', 'the campaign store is not configured (RELAYFLOW_DATABASE_URL)');
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
    const ref = parseCampaignMessageToken(body['client-reference']);
    const code = typeof body.code === 'string' ? body.code : '';
    const meaning = CODES[code];
    if (!ref || !meaning) return { ignored: ref ? `code ${code || 'missing'} is not a delivery status` : 'not a relayflow campaign message' };
    const trackingId = typeof body['tracking-id'] === 'string' ? body['tracking-id'] : '';
    const eventTime = typeof body.timestamp === 'string' && !Number.isNaN(Date.parse(body.timestamp)) ? body.timestamp : new Date().toISOString();
    const r = await storeCall(() =>
      store.recordReport({
        campaignId: ref.campaignId,
        seq: ref.seq,
        eventKey: `mms|${trackingId}|${code}|${eventTime}`,
        status: meaning.status,
        final: meaning.final,
        eventTime,
        ...(trackingId ? { platformId: trackingId } : {}),
        ...(meaning.status === 'failed' ? { reason: `${code}${typeof body['status-details'] === 'string' ? `: ${body['status-details']}` : ''}` } : {}),
      }),
    );
    if (!r.known) return { ignored: 'unknown campaign recipient' };
    if (r.duplicate) noteDuplicateCallback(req);
    return r.duplicate ? { duplicate: true } : { accepted: true };
  });
};
