// Delivery reports (docs/conversation-wire.md "Webhooks and delivery reports"): when a message
// leaves its app's MT queue it is QUEUED_ON_CHANNEL, then after the configured delay DELIVERED or
// FAILED by the suffix rules. Each report is POSTed to every webhook of the app subscribed to
// MESSAGE_DELIVERY, signed with that webhook's secret, through the core dispatcher (retries on the
// area's schedule, core callback faults), after the area's own faults (drop, duplicate, reorder,
// delay). The reports of one message to one webhook go out one after the other, so only an injected
// reorder (or a retry schedule that gives up) lets a QUEUED_ON_CHANNEL arrive after the final one.
import { conversationWebhookSigner } from '../../core/callback-signers.js';
import type { SandboxContext } from '../../core/context.js';
import type { DeliveryStatus, Message, Webhook } from './model.js';
import type { ConversationSettings } from './settings.js';
import type { ConversationStore } from './store.js';
import type { Timers } from '../../core/timers.js';
import { DueQueue } from './due-queue.js';

export interface ReportCounts {
  /** Reports made, by status. */
  made: Record<string, number>;
  /** Reports made while no webhook of the app subscribed to MESSAGE_DELIVERY. */
  unsubscribed: number;
  dropped: number;
  duplicated: number;
}

const newCounts = (): ReportCounts => ({ made: {}, unsubscribed: 0, dropped: 0, duplicated: 0 });

interface Report {
  message: Message;
  body: Record<string, unknown>;
  duplicated: boolean;
  delayMs: number;
}

export class ReportHub {
  counts = newCounts();
  private readonly finals: DueQueue;
  private readonly chains = new Map<string, Promise<void>>();
  /** QUEUED_ON_CHANNEL reports held back by the reorder fault, by message id. */
  private readonly held = new Map<string, { report: Report; subscribers: Webhook[] }>();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly store: ConversationStore,
    private readonly settings: ConversationSettings,
    private readonly timers: Timers,
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
    this.chains.clear();
    this.held.clear();
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
    const held = this.held.get(m.id);
    // Faults are used up only by reports someone would receive.
    if (subscribers.length === 0) {
      this.counts.unsubscribed++;
      if (held) this.releaseHeld(m.id);
      return;
    }
    const f = this.settings.webhookFaults;
    if (f.drop > 0) {
      f.drop--;
      this.counts.dropped++;
      if (held) this.releaseHeld(m.id);
      return;
    }
    const report: Report = { message: m, body, duplicated: f.duplicate > 0, delayMs: f.delayMs };
    if (report.duplicated) {
      f.duplicate--;
      this.counts.duplicated++;
    }
    if (status === 'QUEUED_ON_CHANNEL' && f.reorder) {
      this.held.set(m.id, { report, subscribers });
      return;
    }
    this.send(report, subscribers);
    if (held) this.releaseHeld(m.id);
  }

  private releaseHeld(messageId: string): void {
    const held = this.held.get(messageId);
    this.held.delete(messageId);
    if (held) this.send(held.report, held.subscribers);
  }

  private send(report: Report, subscribers: Webhook[]): void {
    const generation = this.timers.generation;
    for (const webhook of subscribers) {
      const key = `${webhook.id} ${report.message.id}`;
      const next = (this.chains.get(key) ?? Promise.resolve()).then(() => this.deliver(report, webhook, generation));
      this.chains.set(key, next);
      void next.finally(() => {
        if (this.chains.get(key) === next) this.chains.delete(key);
      });
    }
  }

  private async deliver(report: Report, webhook: Webhook, generation: number): Promise<void> {
    if (report.delayMs > 0 && !(await this.timers.sleep(report.delayMs))) return;
    const { scheduleMs, timeoutMs } = this.settings.retry;
    for (let copy = 0; copy < (report.duplicated ? 2 : 1); copy++) {
      // A reset in the meantime: the sandbox has moved on, this report is no longer due.
      if (generation !== this.timers.generation) return;
      await this.ctx.callbacks.dispatch({
        area: 'conversation',
        url: webhook.target,
        body: report.body,
        signer: conversationWebhookSigner(webhook.secret),
        retrySchedule: scheduleMs,
        timeoutMs,
      });
    }
  }
}
