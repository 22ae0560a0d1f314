// The platform's provisioning webhooks: the signature is checked over the raw body (conversation webhook
// scheme, the configured secret; bad, stale or replayed deliveries are 401), then the event goes to its
// resource's inbox by signal-with-start, which keeps it and hands it to the process that follows the
// resource (if any yet). No lookup table; an unreachable Temporal is a 503 so the platform retries.
import type { FastifyPluginAsync } from 'fastify';
import type { Client } from '@temporalio/client';
import type { Logger } from '../../common/logger.js';
import { CONVERSATION_WEBHOOK_HEADERS, verifyConversationWebhook } from '../../common/signing.js';
import { workflowIds } from '../../contracts/ids.js';
import { provisioningEventSignal, resourceOf, type ProvisioningEvent } from '../../contracts/provisioning.js';
import type { resourceInbox } from '../../workflows/provisioning/resource-inbox.js';
import { PROVISIONING_WEBHOOK_PATH } from '../../contracts/callbacks.js';
import { ApiError, badRequest } from '../errors.js';


/** Accepted clock difference of the signature timestamp; nonces are remembered twice as long. */
const MAX_SKEW_SECONDS = 300;
const MAX_NONCES = 100_000;

/** Nonces of accepted deliveries, forgotten after the timestamp window (older ones fail as stale anyway). */
export class NonceStore {
  private readonly seen = new Map<string, number>();

  constructor(private readonly keepMs = 2 * MAX_SKEW_SECONDS * 1000) {}

  /** Records the nonce; true when it was already there (a replay). */
  check(nonce: string): boolean {
    const now = Date.now();
    for (const [n, at] of this.seen) {
      if (now - at <= this.keepMs && this.seen.size <= MAX_NONCES) break;
      this.seen.delete(n);
    }
    if (this.seen.has(nonce)) return true;
    this.seen.set(nonce, now);
    return false;
  }

  /** A delivery that was not recorded (503) may come back with the same nonce. */
  forget(nonce: string): void {
    this.seen.delete(nonce);
  }
}

const CHANNELS = ['CHATA', 'CHATB', 'RCS'];
const RESOURCE_TYPES = ['TEMPLATE', 'SENDER', 'ACCOUNT'];
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The event as the wire contract describes it, or a 400 naming the field (after the signature passed). */
export function parseProvisioningEvent(body: unknown): ProvisioningEvent {
  if (!isObj(body)) throw badRequest('body', 'type', 'must be a JSON object');
  const str = (k: string, max = 512) => {
    const v = body[k];
    if (typeof v !== 'string' || v.length === 0 || v.length > max) throw badRequest(`body.${k}`, 'type', `must be a string of 1 to ${max} characters`);
    return v;
  };
  str('eventId');
  str('projectId');
  str('trigger', 128);
  str('resourceId');
  str('eventTime', 64);
  if (!CHANNELS.includes(body.channel as string)) throw badRequest('body.channel', 'enum', `must be one of ${CHANNELS.join(', ')}`);
  if (!RESOURCE_TYPES.includes(body.resourceType as string)) throw badRequest('body.resourceType', 'enum', `must be one of ${RESOURCE_TYPES.join(', ')}`);
  if (!Number.isSafeInteger(body.sequence) || (body.sequence as number) < 0) throw badRequest('body.sequence', 'type', 'must be a whole number');
  if (body.comment !== undefined && typeof body.comment !== 'string') throw badRequest('body.comment', 'type', 'must be a string');
  if (body.details !== undefined && !isObj(body.details)) throw badRequest('body.details', 'type', 'must be an object');
  // Unknown triggers (a newer platform) are kept all the same: the inbox records them, processes ignore them.
  return { ...(body as unknown as ProvisioningEvent), details: (body.details ?? {}) as ProvisioningEvent['details'] };
}

export interface ProvisioningWebhookOptions {
  client: Client;
  taskQueue: string;
  secret: string | undefined;
}

export const provisioningWebhookRoutes: FastifyPluginAsync<ProvisioningWebhookOptions> = async (app, { client, taskQueue, secret }) => {
  const nonces = new NonceStore();

  app.post(PROVISIONING_WEBHOOK_PATH, { config: { auth: 'signature' }, schema: { hide: true } as never }, async (req, reply) => {
    if (!secret) throw new ApiError(401, 'bad_signature', 'no provisioning webhook secret is configured (RELAYFLOW_PROVISIONING_WEBHOOK_SECRET)');
    const check = verifyConversationWebhook({
      headers: req.headers,
      rawBody: req.rawBody ?? Buffer.alloc(0),
      secret,
      maxSkewSeconds: MAX_SKEW_SECONDS,
      seenNonce: (nonce) => nonces.check(nonce),
    });
    if (!check.ok) throw new ApiError(401, 'bad_signature', `webhook signature rejected: ${check.reason}`);
    const nonce = String(req.headers[CONVERSATION_WEBHOOK_HEADERS.nonce]);
    let event: ProvisioningEvent;
    try {
      event = parseProvisioningEvent(req.body);
    } catch (err) {
      nonces.forget(nonce);
      throw err;
    }
    const resource = resourceOf(event);
    const inboxId = workflowIds.resourceInbox(resource.channel, resource.resourceType, resource.resourceId);
    try {
      await client.workflow.signalWithStart<typeof resourceInbox, [ProvisioningEvent]>('resourceInbox', {
        workflowId: inboxId,
        taskQueue,
        args: [{ resource }],
        signal: provisioningEventSignal,
        signalArgs: [event],
      });
    } catch (err) {
      nonces.forget(nonce);
      (req.log as unknown as Logger).warn({ err, inboxId, eventId: event.eventId }, 'provisioning webhook not recorded; the platform will retry');
      throw new ApiError(503, 'unavailable', 'could not record the event; retry later', undefined, 5_000);
    }
    return reply.status(200).send({});
  });
};

