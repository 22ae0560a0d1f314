// POST /_sandbox/provisioning/senders/{senderId}/health: a live sender's health changed on the platform, on demand.
// Each field given becomes the webhook event the platform sends for it (applied to the sender first, through the
// same path as POST /_sandbox/provisioning/events): CHATA qualityRating -> CHATA_SENDER_QUALITY_RATING_CHANGED,
// messagingLimit -> CHATA_SENDER_DAILY_LIMIT_CHANGED, status -> CHATA_WABA_ACCOUNT_CHANGED (details.state);
// CHATB status INACTIVE -> CHATB_SENDER_INACTIVE; RCS status -> RCS_SENDER_STATUS_UPDATED.
import type { FastifyInstance } from 'fastify';
import type { ProvisioningDeps } from './context.js';
import { applyControlEvent } from './events.js';
import { invalidInput, notFound } from './errors.js';
import type { WebhookEvent } from './model.js';
import { fields } from './validation.js';
import { CHATA_MESSAGING_LIMITS, CHATA_QUALITY_RATINGS, CHATA_SENDER_STATES } from '../../../common/wire/provisioning.js';

interface HealthChange {
  qualityRating?: string;
  messagingLimit?: string;
  status?: string;
}

function checkHealth(input: unknown): HealthChange {
  const f = fields();
  const body = f.body(input ?? {}, ['qualityRating', 'messagingLimit', 'status']);
  const out: HealthChange = {};
  for (const k of ['qualityRating', 'messagingLimit', 'status'] as const) {
    const v = f.string(body, k, '', { min: 1 });
    if (v !== undefined) out[k] = v;
  }
  if (Object.keys(body).length === 0) f.add('body', 'must name at least one of qualityRating, messagingLimit, status');
  f.check();
  return out;
}

export function senderHealthControl(app: FastifyInstance, deps: ProvisioningDeps): void {
  app.post<{ Params: { senderId: string } }>('/senders/:senderId/health', async (request) => {
    const change = checkHealth(request.body);
    const resourceId = request.params.senderId;
    const { store } = deps;
    const channel = store.chataSenders.find(resourceId)
      ? 'CHATA'
      : store.chatbSenders.find(resourceId)
        ? 'CHATB'
        : store.rcsSenders.find(resourceId)
          ? 'RCS'
          : undefined;
    if (!channel) throw notFound('Sender', resourceId);
    const events: { trigger: string; details: Record<string, string> }[] = [];
    if (channel === 'CHATA') {
      // All checked before the first event changes the sender.
      const wrong = (k: keyof HealthChange, values: readonly string[]) =>
        change[k] !== undefined && !values.includes(change[k]) ? [{ field: k, description: `must be one of ${values.join(', ')}` }] : [];
      const errors = [
        ...wrong('qualityRating', CHATA_QUALITY_RATINGS),
        ...wrong('messagingLimit', CHATA_MESSAGING_LIMITS),
        ...wrong('status', CHATA_SENDER_STATES),
      ];
      if (errors.length) throw invalidInput(errors);
      if (change.qualityRating) events.push({ trigger: 'CHATA_SENDER_QUALITY_RATING_CHANGED', details: { qualityRating: change.qualityRating } });
      if (change.messagingLimit) events.push({ trigger: 'CHATA_SENDER_DAILY_LIMIT_CHANGED', details: { messagingLimit: change.messagingLimit } });
      if (change.status) events.push({ trigger: 'CHATA_WABA_ACCOUNT_CHANGED', details: { state: change.status } });
    } else {
      const other = (['qualityRating', 'messagingLimit'] as const).filter((k) => change[k] !== undefined);
      if (other.length) throw invalidInput(other.map((k) => ({ field: k, description: `a ${channel} sender has no ${k} (CHATA senders only)` })));
      if (channel === 'CHATB') {
        if (change.status !== 'INACTIVE') throw invalidInput([{ field: 'status', description: 'a CHATB sender can only be made INACTIVE' }]);
        events.push({ trigger: 'CHATB_SENDER_INACTIVE', details: {} });
      } else events.push({ trigger: 'RCS_SENDER_STATUS_UPDATED', details: { state: change.status! } });
    }
    // applyControlEvent checks every value against the wire's sets (400 naming the field) before it changes anything.
    const sent: WebhookEvent[] = events.map((e) => applyControlEvent(deps, { resourceType: 'SENDER', resourceId, ...e }));
    return { events: sent };
  });
}
