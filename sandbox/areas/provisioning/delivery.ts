// Emits provisioning webhook events: one sequence per resource, one signed POST per subscribed
// webhook (conversation webhook signature, the core dispatcher's retries), and the control
// interface's webhook faults (delay, duplicate, reorder, drop). Deliveries of one resource to one
// webhook go out in order, so that only an injected reorder makes sequences arrive out of order.
// The body is the full envelope or, when the envelope setting says so, only what the spec promises.
import { ulid } from 'ulid';
import { conversationWebhookSigner } from '../../core/callback-signers.js';
import type { SandboxContext } from '../../core/context.js';
import type { EventDetails, Webhook, WebhookEvent } from './model.js';
import { nowIso, type ProvisioningStore } from './store.js';
import type { Timers } from '../../core/timers.js';
import { fullEnvelope, wireBody, type EnvelopeSetting } from './envelope.js';

export interface WebhookFaults {
  /** Added before every delivery while set. */
  delayMs: number;
  /** The next N events are sent twice (same eventId). */
  duplicate: number;
  /** The next event is held until the next event of the same resource, and sent after it. */
  reorder: boolean;
  /** The next N events are never sent (the resource still changes). */
  drop: number;
}

type DeliveryFate = 'sent' | 'dropped' | 'held' | 'no-subscribers';

export interface EventRecord {
  event: WebhookEvent;
  /** What is POSTed: the event itself, or the minimal body (envelope.ts) made when it happened. */
  body: Record<string, unknown>;
  delivery: DeliveryFate;
  /** Webhooks subscribed to the trigger when the event happened. */
  targets: number;
  duplicated: boolean;
  reordered: boolean;
  delayMs: number;
}

export type EventInput = Omit<WebhookEvent, 'eventId' | 'sequence' | 'eventTime'>;

/** A held event goes out alone if no partner arrives in this time. */
const REORDER_MAX_HOLD_MS = 30_000;
const MAX_RECORDS = 10_000;

export const noWebhookFaults = (): WebhookFaults => ({ delayMs: 0, duplicate: 0, reorder: false, drop: 0 });

export class WebhookHub {
  faults: WebhookFaults = noWebhookFaults();
  envelope: EnvelopeSetting = fullEnvelope();
  private readonly sequences = new Map<string, number>();
  private readonly chains = new Map<string, Promise<void>>();
  private held: { record: EventRecord; subscribers: Webhook[] } | undefined;
  private records: EventRecord[] = [];

  constructor(
    private readonly ctx: SandboxContext,
    private readonly store: ProvisioningStore,
    private readonly timers: Timers,
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
    this.records.push(record);
    if (this.records.length > MAX_RECORDS) this.records = this.records.slice(-MAX_RECORDS);
    // Faults are used up only by events someone would receive.
    if (subscribers.length === 0) return event;
    const f = this.faults;
    if (f.drop > 0) {
      f.drop--;
      record.delivery = 'dropped';
      return event;
    }
    if (f.duplicate > 0) {
      f.duplicate--;
      record.duplicated = true;
    }
    record.delayMs = f.delayMs;
    const held = this.held;
    if (held && held.record.event.resourceId === event.resourceId) {
      this.held = undefined;
      record.reordered = held.record.reordered = true;
      this.send(record, subscribers);
      this.send(held.record, held.subscribers);
    } else if (f.reorder && !held) {
      f.reorder = false;
      record.delivery = 'held';
      this.held = { record, subscribers };
      this.timers.after(REORDER_MAX_HOLD_MS, () => {
        if (this.held?.record !== record) return;
        this.held = undefined;
        this.send(record, subscribers);
      });
    } else {
      this.send(record, subscribers);
    }
    return event;
  }

  events(): EventRecord[] {
    return this.records.map((r) => ({ ...r }));
  }

  /** What a restart keeps: the event log and each resource's last sequence (deliveries in flight are not kept). */
  save(): { sequences: Record<string, number>; records: EventRecord[] } {
    return { sequences: Object.fromEntries(this.sequences), records: this.records };
  }

  load(saved: { sequences: Record<string, number>; records: EventRecord[] }): void {
    this.sequences.clear();
    for (const [id, n] of Object.entries(saved.sequences)) this.sequences.set(id, n);
    this.records = [...saved.records];
  }

  reset(): void {
    this.faults = noWebhookFaults();
    this.envelope = fullEnvelope();
    this.sequences.clear();
    this.chains.clear();
    this.held = undefined;
    this.records = [];
  }

  private send(record: EventRecord, subscribers: Webhook[]): void {
    record.delivery = 'sent';
    const generation = this.timers.generation;
    for (const webhook of subscribers) {
      const key = `${webhook.id} ${record.event.resourceId}`;
      const next = (this.chains.get(key) ?? Promise.resolve()).then(() => this.deliver(record, webhook, generation));
      this.chains.set(key, next);
      void next.finally(() => {
        if (this.chains.get(key) === next) this.chains.delete(key);
      });
    }
  }

  private async deliver(record: EventRecord, webhook: Webhook, generation: number): Promise<void> {
    if (record.delayMs > 0 && !(await this.timers.sleep(record.delayMs))) return;
    for (let copy = 0; copy < (record.duplicated ? 2 : 1); copy++) {
      // A reset in the meantime: the sandbox has moved on, this event is no longer due.
      if (generation !== this.timers.generation) return;
      await this.ctx.callbacks.dispatch({ area: 'provisioning', url: webhook.target, body: record.body, signer: conversationWebhookSigner(webhook.secret) });
    }
  }
}

function withoutUndefined(details: EventDetails): EventDetails {
  return Object.fromEntries(Object.entries(details).filter(([, v]) => v !== undefined)) as EventDetails;
}
