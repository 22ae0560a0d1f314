// Delivers the outbox's events to their subscriptions, beside a worker's pollers: claims what is due (the
// store keeps each process's events in order and lets several workers share the work), posts each, settles it.
// A failed attempt is retried with exponential backoff; a delivery still failing `retryFor` after its event is
// the subscription's end: it is disabled, and says why, with its deliveries kept for when it is enabled again.
import type { Logger } from '../../common/logger.js';
import type { EventSettings } from '../../common/config/events.js';
import type { DeliveryJob, EventSubscriptionStore } from '../../store/event-subscriptions.js';
import { postEvent, type AttemptResult } from './post.js';

const HOUR = 3_600_000;
/** Idle, the deliverer looks again after this long, slowing to IDLE_MAX_MS while there is nothing. */
const IDLE_MIN_MS = 50;
const IDLE_MAX_MS = 1_000;

/** The wait before attempt `attempt + 1`: doubling from `firstMs`, at most an hour, give or take a tenth. */
function retryDelayMs(attempt: number, firstMs: number, random = Math.random): number {
  const base = Math.min(firstMs * 2 ** Math.max(0, attempt - 1), HOUR);
  return Math.round(base * (0.9 + 0.2 * random()));
}

export class EventDeliverer {
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly leaseMs: number;

  constructor(
    private readonly store: EventSubscriptionStore,
    private readonly settings: EventSettings,
    private readonly log: Logger,
  ) {
    // Longer than an attempt can take, so a live attempt keeps its delivery; a dead worker's is taken after it.
    this.leaseMs = settings.timeoutMs + 5_000;
  }

  async run(): Promise<void> {
    let idleMs = IDLE_MIN_MS;
    let sweptAt = 0;
    while (!this.stopped) {
      const room = this.settings.concurrency - this.inFlight.size;
      let jobs: DeliveryJob[] = [];
      if (room > 0) {
        try {
          jobs = await this.store.claim(room, this.leaseMs);
        } catch (err) {
          this.log.warn({ err }, 'events: claiming deliveries failed; trying again');
        }
      }
      for (const job of jobs) {
        const attempt: Promise<void> = this.attempt(job).finally(() => this.inFlight.delete(attempt));
        this.inFlight.add(attempt);
      }
      if (Date.now() - sweptAt > HOUR) {
        sweptAt = Date.now();
        await this.store.sweep(this.settings.keepMs).catch((err: unknown) => this.log.warn({ err }, 'events: sweeping old events failed'));
      }
      idleMs = jobs.length > 0 ? IDLE_MIN_MS : Math.min(idleMs * 2, IDLE_MAX_MS);
      // Busy: claim again once half the room is free, so one claim query serves several deliveries.
      if (jobs.length > 0 && jobs.length === room) await this.roomFor(Math.max(1, Math.floor(this.settings.concurrency / 2)));
      // A settled attempt may have freed its process's next event: look again at once.
      else await this.pause(idleMs);
    }
    await Promise.all(this.inFlight);
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private async roomFor(free: number): Promise<void> {
    while (!this.stopped && this.settings.concurrency - this.inFlight.size < free) await Promise.race(this.inFlight);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const settled = [...this.inFlight];
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
      if (settled.length > 0) void Promise.race(settled).then(done);
    });
  }

  private async attempt(job: DeliveryJob): Promise<void> {
    const result = await postEvent(job, { timeoutMs: this.settings.timeoutMs, allowPrivate: this.settings.allowPrivateUrls });
    try {
      if (result.ok) await this.store.delivered(job, { statusCode: result.statusCode!, latencyMs: result.latencyMs });
      else await this.store.failed(job, this.failure(job, result));
    } catch (err) {
      // The lease runs out and another attempt is made: at least once.
      this.log.warn({ err, subscriptionId: job.subscriptionId, eventId: job.event.eventId }, 'events: recording a delivery attempt failed');
    }
  }

  private failure(job: DeliveryJob, result: AttemptResult) {
    const now = Date.now();
    const error = result.error ?? 'failed';
    const overdue = now - job.createdAt.getTime() >= this.settings.retryForMs;
    const disable = overdue
      ? `disabled: event ${job.event.eventId} failed for ${Math.round((now - job.createdAt.getTime()) / HOUR)} h, the last attempt: ${error}`
      : undefined;
    this.log.info(
      { subscriptionId: job.subscriptionId, eventId: job.event.eventId, attempt: job.attempt, error, ...(disable ? { disabled: true } : {}) },
      'events: a delivery failed',
    );
    return {
      ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}),
      latencyMs: result.latencyMs,
      error,
      retryAt: new Date(now + retryDelayMs(job.attempt, this.settings.firstRetryMs)),
      ...(disable ? { disable } : {}),
    };
  }
}
