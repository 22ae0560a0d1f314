// Emits provisioning webhook events: one sequence per resource, one signed POST per subscribed
// webhook (conversation webhook signature, with the webhook's secret at each attempt), through the area's callback hub (the core's retries and the
// webhook faults: delay, duplicate, reorder, drop). Deliveries of one resource to one webhook go out in
// order, so that only an injected reorder makes sequences arrive out of order.
// The body is the full envelope or, when the envelope setting says so, only what the spec promises.
import { ulid } from 'ulid';
import { conversationWebhookSigner } from '../../core/callback-signers.js';
import type { CallbackFate, CallbackHub } from '../../core/callback-hub.js';
import type { EventDetails, Webhook, WebhookEvent } from './model.js';
import type { CallbackSigner } from '../../core/callbacks.js';
import { keptTogether, type Kept } from '../../core/kept.js';
import { KeyedTable } from '../../core/table.js';
import { nowIso, type ProvisioningStore } from './store.js';
import { fullEnvelope, wireBody, type EnvelopeSetting } from './envelope.js';

type DeliveryFate = 'sent' | 'dropped' | 'held' | 'no-subscribers';

export interface EventRecord extends CallbackFate {
  event: WebhookEvent;
  /** What is POSTed: the event itself, or the minimal body (envelope.ts) made when it happened. */
  body: Record<string, unknown>;
  delivery: DeliveryFate;
  /** Webhooks subscribed to the trigger when the event happened. */
  targets: number;
}

export type EventInput = Omit<WebhookEvent, 'eventId' | 'sequence' | 'eventTime'>;

/** Each resource's sequence, the event log (through the callback hub) and the envelope setting. */
export class WebhookEvents {
  envelope: EnvelopeSetting = fullEnvelope();
  private readonly sequences = new KeyedTable<number>();

  constructor(
    private readonly store: ProvisioningStore,
    /** The area's callbacks (EVENT_CALLBACKS). */
    readonly hub: CallbackHub<EventRecord>,
  ) {}

  emit(input: EventInput): WebhookEvent {
    const sequence = (this.sequences.get(input.resourceId) ?? 0) + 1;
    this.sequences.set(input.resourceId, sequence);
    const event: WebhookEvent = {
      eventId: ulid(),
      projectId: input.projectId,
      trigger: input.trigger,
      channel: input.channel,
      resourceType: input.resourceType,
      resourceId: input.resourceId,
      sequence,
      eventTime: nowIso(),
      ...(input.comment !== undefined ? { comment: input.comment } : {}),
      details: withoutUndefined(input.details),
    };
    const subscribers = this.store.webhooks.list(input.projectId).filter((w) => w.triggers.includes(input.trigger));
    const record: EventRecord = {
      event,
      body: wireBody(this.envelope, this.store, event),
      delivery: 'no-subscribers',
      targets: subscribers.length,
      duplicated: false,
      reordered: false,
      delayMs: 0,
    };
    this.hub.send({
      fate: record,
      key: event.resourceId,
      body: record.body,
      // Signed at each attempt with the webhook's secret then: a retry after a rotation carries the new one.
      targets: subscribers.map((w) => ({ id: w.id, url: w.target, signer: this.#signer(input.projectId, w) })),
    });
    return event;
  }

  #signer(projectId: string, webhook: Webhook): CallbackSigner {
    return (request) => conversationWebhookSigner((this.store.webhooks.get(projectId, webhook.id) ?? webhook).secret)(request);
  }

  events(): EventRecord[] {
    return this.hub.log();
  }

  /** What a restart keeps: the event log and each resource's last sequence (deliveries in flight are not kept). */
  get kept(): Kept<Record<string, unknown>> {
    return keptTogether({ sequences: this.sequences, records: this.hub.keptLog });
  }

  reset(): void {
    this.envelope = fullEnvelope();
    this.sequences.clear();
  }
}

function withoutUndefined(details: EventDetails): EventDetails {
  return Object.fromEntries(Object.entries(details).filter(([, v]) => v !== undefined)) as EventDetails;
}
