// Delivery reports (docs/conversation-wire.md "Webhooks and delivery reports"): when a message
// leaves its app's MT queue it is QUEUED_ON_CHANNEL, then after the configured delay DELIVERED or
// FAILED by the suffix rules. Each report is POSTed to every webhook of the app subscribed to
// MESSAGE_DELIVERY, signed with that webhook's secret, through the area's callback hub (retries on the
// area's schedule, the webhook faults: drop, duplicate, reorder, delay). The reports of one message to
// one webhook go out one after the other, so only an injected reorder (or a retry schedule that gives
// up) lets a QUEUED_ON_CHANNEL arrive after the final one.
import type { CallbackFate, CallbackHub } from '../../core/callback-hub.js';
import { conversationWebhookSigner } from '../../core/callback-signers.js';
import type { Timers } from '../../core/timers.js';
import { DueQueue } from './due-queue.js';
import type { Message } from './model.js';
import type { DeliveryStatus } from '../../../common/wire/conversation.js';
import type { ConversationSettings } from './settings.js';
import type { ConversationStore } from './store.js';

export interface ReportCounts {
  /** Reports made, by status. */
  made: Record<string, number>;
  /** Reports made while no webhook of the app subscribed to MESSAGE_DELIVERY. */
  unsubscribed: number;
  dropped: number;
  duplicated: number;
}

const newCounts = (): ReportCounts => ({ made: {}, unsubscribed: 0, dropped: 0, duplicated: 0 });

export class ReportHub {
  counts = newCounts();
  private readonly finals: DueQueue;

  constructor(
    private readonly store: ConversationStore,
    private readonly settings: ConversationSettings,
    timers: Timers,
    /** While reorder is set, each message's QUEUED_ON_CHANNEL is held until its final report. */
    readonly hub: CallbackHub,
  ) {
    this.finals = new DueQueue(timers);
  }

  /** The message has left the MT queue: it is on the channel now, and final after the report delay. */
  onDrained(m: Message): void {
    const { queuedReport, reportDelayMs } = this.settings.delivery;
    m.status = 'QUEUED_ON_CHANNEL';
    m.finalAt = Date.now() + reportDelayMs;
    if (queuedReport) this.emit(m, 'QUEUED_ON_CHANNEL');
    this.finals.add(reportDelayMs, () => this.finish(m));
  }

  /** After a restore: the final reports of messages that were on the channel, at their finalAt (sooner first). */
  resumeFinals(messages: readonly Message[]): void {
    const due = messages.filter((m) => m.status === 'QUEUED_ON_CHANNEL').sort((a, b) => (a.finalAt ?? 0) - (b.finalAt ?? 0));
    for (const m of due) this.finals.add(Math.max(0, (m.finalAt ?? 0) - Date.now()), () => this.finish(m));
  }

  private finish(m: Message): void {
    const outcome = this.settings.outcomeFor(m.identity);
    m.status = outcome.status;
    delete m.finalAt;
    this.emit(m, outcome.status, outcome.reason);
  }

  reset(): void {
    this.finals.clear();
    this.counts = newCounts();
  }

  private emit(m: Message, status: DeliveryStatus, reason?: { code: string; description: string }): void {
    this.counts.made[status] = (this.counts.made[status] ?? 0) + 1;
    const now = new Date().toISOString();
    const body = {
      app_id: m.appId,
      accepted_time: now,
      event_time: now,
      project_id: m.projectId,
      message_delivery_report: {
        message_id: m.id,
        conversation_id: m.conversationId,
        status,
        channel_identity: { channel: m.channel, identity: m.identity, app_id: m.appId },
        contact_id: m.contactId,
        ...(reason ? { reason } : {}),
        metadata: m.metadata,
        processing_mode: 'CONVERSATION',
      },
      message_metadata: m.metadata,
      correlation_id: m.correlationId,
    };
    const subscribers = this.store.webhooksOf(m.appId).filter((w) => w.triggers.includes('MESSAGE_DELIVERY'));
    if (subscribers.length === 0) this.counts.unsubscribed++;
    const fate: CallbackFate = { delivery: 'none', duplicated: false, reordered: false, delayMs: 0 };
    this.hub.send({
      fate,
      key: m.id,
      body,
      targets: subscribers.map((w) => ({ id: w.id, url: w.target, signer: conversationWebhookSigner(w.secret) })),
      holdable: status === 'QUEUED_ON_CHANNEL',
    });
    if (fate.delivery === 'dropped') this.counts.dropped++;
    if (fate.duplicated) this.counts.duplicated++;
  }
}
