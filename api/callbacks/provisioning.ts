// The platform's provisioning webhooks, through the intake pipeline (intake.ts): the signature is checked over the raw
// body (conversation webhook scheme, docs/provisioning-wire.md; the configured secret, and during a rotation the
// previous one until its end, common/secret-rotation.ts; bad or stale deliveries are 401), then the body against one
// schema (the spec promises only a trigger, a comment and the resource's JSON, so everything else is optional). The
// event ID is the envelope's `eventId`, else a hash of the raw body; a replay of a signed delivery is that event's
// repeat. The event is one signal to the process linked to its resource, or kept by the resource's inbox while no
// running process has claimed it (provisioning-delivery.ts). An unreachable Temporal or store is a 503 so the platform
// retries.
import type { ValidateFunction } from 'ajv';
import type { FastifyPluginAsync } from 'fastify';
import Type, { type Static } from 'typebox';
import type { Client } from '@temporalio/client';
import { verifyConversationWebhookWithSecrets } from '../../common/signing.js';
import { acceptedSecrets, type PreviousSecret } from '../../common/secret-rotation.js';
import type { ProvisioningEvent } from '../../processes/provisioning/contract.js';
import type { ResourceLinkStore } from '../../store/resource-links.js';
import type { ProvisioningResourceType } from '../../common/wire/provisioning.js';
import { triggerTarget } from '../../platform/provisioning/types.js';
import { PROVISIONING_WEBHOOK_PATH } from '../../contracts/callbacks.js';
import { ApiError } from '../errors.js';
import { deliverProvisioningEvent, type Delivery } from './provisioning-delivery.js';
import { validationDetails, validatorCompiler } from '../plugins/validation.js';
import { bodyHash, type IntakePipeline } from './intake.js';

/** Accepted clock difference of the signature timestamp. */
const MAX_SKEW_SECONDS = 300;

const Id = Type.String({ minLength: 1, maxLength: 512 });
/** The resource's JSON: only its `id` is read, the rest is the platform's business. */
const ResourceJson = Type.Object({ id: Type.Optional(Id) });
/** Keys that may hold the resource's JSON, in the order its `id` is looked for (after `resourceId`). */
const RESOURCE_KEYS = ['resource', 'payload', 'template', 'sender', 'account'] as const;
const KEY_TYPES: Partial<Record<(typeof RESOURCE_KEYS)[number], ProvisioningResourceType>> = { template: 'TEMPLATE', sender: 'SENDER', account: 'ACCOUNT' };

/**
 * A delivery as the spec promises it (a trigger, an optional comment, the resource's JSON) or as the
 * sandbox's full envelope has it. Unknown fields are allowed: the resource's own fields may sit at the top.
 */
const ProvisioningWebhookBody = Type.Object({
  trigger: Type.String({ minLength: 1, maxLength: 128 }),
  comment: Type.Optional(Type.String({ maxLength: 4096 })),
  eventId: Type.Optional(Id),
  projectId: Type.Optional(Id),
  channel: Type.Optional(Type.Enum(['CHATA', 'CHATB', 'RCS', 'PROJECT'])),
  resourceType: Type.Optional(Type.Enum(['TEMPLATE', 'SENDER', 'ACCOUNT', 'BUNDLE'])),
  resourceId: Type.Optional(Id),
  sequence: Type.Optional(Type.Integer({ minimum: 0 })),
  eventTime: Type.Optional(Type.String({ format: 'date-time' })),
  details: Type.Optional(Type.Object({})),
  id: Type.Optional(Id),
  resource: Type.Optional(ResourceJson),
  payload: Type.Optional(ResourceJson),
  template: Type.Optional(ResourceJson),
  sender: Type.Optional(ResourceJson),
  account: Type.Optional(ResourceJson),
});
type ProvisioningWebhookBody = Static<typeof ProvisioningWebhookBody>;

const checkBody = validatorCompiler({ schema: ProvisioningWebhookBody, method: 'POST', url: PROVISIONING_WEBHOOK_PATH, httpPart: 'body' }) as ValidateFunction;

/** Not ours to route: a trigger of no provisioning resource, or no resource ID anywhere. */
export interface IgnoredEvent {
  ignored: string;
}

/**
 * The delivery as relayflow's internal event (docs/provisioning-wire.md, "Receiving"), an IgnoredEvent,
 * or a 400 naming the field. `rawBody` names an event that carries no eventId.
 */
export function parseProvisioningEvent(body: unknown, rawBody: Buffer, receivedAt = new Date()): ProvisioningEvent | IgnoredEvent {
  if (!checkBody(body)) {
    const details = validationDetails(checkBody.errors ?? [], 'body');
    throw new ApiError(400, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
  }
  const b = body as ProvisioningWebhookBody;
  const keyed = RESOURCE_KEYS.find((k) => b[k] !== undefined && KEY_TYPES[k]);
  const fromTrigger = triggerTarget(b.trigger);
  const channel = b.channel ?? fromTrigger?.channel;
  const resourceType = b.resourceType ?? (keyed ? KEY_TYPES[keyed] : undefined) ?? fromTrigger?.resourceType;
  if (!channel || !resourceType) return { ignored: `trigger ${b.trigger} names no provisioning resource` };
  const resourceId = b.resourceId ?? RESOURCE_KEYS.map((k) => b[k]?.id).find((id) => id !== undefined) ?? b.id;
  if (!resourceId) return { ignored: `no resource ID in the ${b.trigger} event (resourceId, ${RESOURCE_KEYS.map((k) => `${k}.id`).join(', ')}, id)` };
  return {
    eventId: b.eventId ?? bodyHash(rawBody),
    ...(b.projectId !== undefined ? { projectId: b.projectId } : {}),
    trigger: b.trigger,
    channel,
    resourceType,
    resourceId,
    ...(b.sequence !== undefined ? { sequence: b.sequence } : {}),
    ...(b.eventTime !== undefined ? { eventTime: b.eventTime } : { eventTime: receivedAt.toISOString(), timeReceived: true as const }),
    ...(b.comment !== undefined ? { comment: b.comment } : {}),
    details: (b.details ?? {}) as ProvisioningEvent['details'],
  };
}

export interface ProvisioningWebhookOptions {
  intakes: IntakePipeline;
  client: Client;
  taskQueue: string;
  secret: string | undefined;
  /** During a rotation, the secret the platform signed with before, accepted until its end. */
  previousSecret?: PreviousSecret | undefined;
  /** RELAYFLOW_INBOX_IDLE_MS for the inboxes this intake starts (unset: the inbox's default, 30 days). */
  inboxIdleMs?: number | undefined;
  /** The resource-to-process links; without the store every event goes to its resource's inbox. */
  links?: ResourceLinkStore | undefined;
}

export const provisioningWebhookRoutes: FastifyPluginAsync<ProvisioningWebhookOptions> = async (
  app,
  { intakes, client, taskQueue, secret, previousSecret, inboxIdleMs, links },
) => {
  intakes.route<ProvisioningEvent>(app, {
    intake: 'provisioning',
    url: PROVISIONING_WEBHOOK_PATH,
    verify: (req, rawBody) => {
      if (!secret) return { ok: false, reason: 'no provisioning webhook secret is configured (RELAYFLOW_PROVISIONING_WEBHOOK_SECRET)' };
      return verifyConversationWebhookWithSecrets({
        headers: req.headers,
        rawBody,
        secrets: acceptedSecrets({ current: secret, previous: previousSecret ? [previousSecret] : [] }),
        maxSkewSeconds: MAX_SKEW_SECONDS,
      });
    },
    read: (req, rawBody, log) => {
      const parsed = parseProvisioningEvent(req.body, rawBody);
      if (!('ignored' in parsed)) return { eventId: parsed.eventId, event: parsed };
      // Acknowledged: a retry would bring the same event, and nothing here can route it.
      log.info({ trigger: (req.body as { trigger: string }).trigger, why: parsed.ignored }, 'provisioning webhook ignored');
      return { answer: { body: parsed } };
    },
    handOff: async (event, { log }) => {
      const delivery: Delivery = await deliverProvisioningEvent({ client, taskQueue, inboxIdleMs, links, log }, event);
      log.debug({ eventId: event.eventId, resourceId: event.resourceId, ...delivery }, 'provisioning webhook delivered');
      return { answer: { body: {} } };
    },
  });
};
