// What the control routes set (all back to these defaults on reset): the project's request limit,
// delivery outcomes, webhook retry schedule, "accept then time out" sends (webhook faults: the area's hub), and the
// projects blocked for credit.
import { DEFAULT_RETRY_SCHEDULE } from '../../core/callbacks.js';

export interface DeliveryRule {
  /** Matches a recipient identity ending with it ('' matches every identity). */
  suffix: string;
  status: 'DELIVERED' | 'FAILED';
  reasonCode?: string;
}

export interface DeliverySettings {
  /** First match wins; no match means DELIVERED. */
  rules: DeliveryRule[];
  /** Between QUEUED_ON_CHANNEL (when the message leaves the MT queue) and the final report. */
  reportDelayMs: number;
  /** Whether QUEUED_ON_CHANNEL is reported at all. */
  queuedReport: boolean;
}

export interface RetrySetting {
  /** Gaps before each retry of a non-2xx or unanswered delivery; its length is the number of retries. */
  scheduleMs: number[];
  /** One attempt without an answer for this long counts as failed (doc: 10 s). */
  timeoutMs: number;
}

export interface SendFaults {
  /** The next `count` accepted sends answer only after this long (the message is kept regardless). */
  acceptThenDelayMs: number;
  count: number;
  /**
   * The next `arriveCount` sends reach the platform only after this long: held in front of it (a load balancer's
   * queue, a busy network), then checked and taken as usual, long after a caller with a shorter timeout gave up.
   */
  arriveAfterMs?: number;
  arriveCount?: number;
}

const FAILURE_REASONS: Record<string, string> = {
  RECIPIENT_NOT_REACHABLE: 'The recipient could not be reached on the channel.',
  RECIPIENT_INVALID_CHANNEL_IDENTITY: 'The channel identity of the recipient is not valid on the channel.',
  CHANNEL_REJECT: 'The channel rejected the message.',
};
export const DEFAULT_FAILURE_REASON = 'RECIPIENT_NOT_REACHABLE';

export const defaultDelivery = (): DeliverySettings => ({ rules: [], reportDelayMs: 0, queuedReport: true });
export const defaultRetry = (): RetrySetting => ({ scheduleMs: [...DEFAULT_RETRY_SCHEDULE], timeoutMs: 10_000 });
const noSendFaults = (): SendFaults => ({ acceptThenDelayMs: 0, count: 0 });

export class ConversationSettings {
  projectRps: number;
  delivery = defaultDelivery();
  retry = defaultRetry();
  sendFaults = noSendFaults();
  /** Projects blocked for credit reasons: their sends answer 403 BILLING_CREDIT_LIMIT_BREACHED until unblocked. */
  readonly billingBlocked = new Set<string>();

  /** `defaultProjectRps`: the sandbox option rateLimits.perProjectPerSecond (800 unless set). */
  constructor(private readonly defaultProjectRps: number) {
    this.projectRps = defaultProjectRps;
  }

  /** The final status and reason for a message to `identity`. */
  outcomeFor(identity: string): { status: 'DELIVERED' | 'FAILED'; reason?: { code: string; description: string } } {
    const rule = this.delivery.rules.find((r) => identity.endsWith(r.suffix));
    if (!rule || rule.status === 'DELIVERED') return { status: 'DELIVERED' };
    const code = rule.reasonCode ?? DEFAULT_FAILURE_REASON;
    return { status: 'FAILED', reason: { code, description: FAILURE_REASONS[code] ?? `The message failed: ${code}.` } };
  }

  /** Uses up one "accept then time out" send; its delay, or 0. */
  takeSendDelay(): number {
    if (this.sendFaults.count <= 0) return 0;
    this.sendFaults.count--;
    return this.sendFaults.acceptThenDelayMs;
  }

  /** Uses up one late arrival; how long the send is held before the platform sees it, or 0. */
  takeArrivalDelay(): number {
    if (!this.sendFaults.arriveCount) return 0;
    this.sendFaults.arriveCount--;
    return this.sendFaults.arriveAfterMs ?? 0;
  }

  reset(): void {
    this.projectRps = this.defaultProjectRps;
    this.delivery = defaultDelivery();
    this.retry = defaultRetry();
    this.sendFaults = noSendFaults();
    this.billingBlocked.clear();
  }
}
