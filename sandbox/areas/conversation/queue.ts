// Each app's MT queue (spec Limits): accepted messages wait here and leave at the app's outbound
// rate, one every 1000/rate ms. Sending faster than that is not refused, it lengthens the queue (its
// peak is kept, so a test or benchmark can tell a sender that keeps pace from one that floods it).
// One timer per app drains whatever is due when it fires, so a benchmark of tens of thousands of
// messages costs a few hundred timer wake-ups a second, not one timer per message.
import { DEFAULT_QUEUE_CAPACITY, type Message } from './model.js';
import type { Timers } from '../../core/timers.js';

interface AppQueue {
  items: Message[];
  head: number;
  /** Earliest time the next message may leave. */
  nextAt: number;
  capacity: number;
  /** Held by a control route so a test can fill the queue; nothing leaves while set. */
  paused: boolean;
  cancel: (() => void) | undefined;
  armedIn: number;
  /** The most messages the queue has held at once. */
  peak: number;
}

export interface QueueState {
  length: number;
  capacity: number;
  paused: boolean;
  peak: number;
}

export class MtQueues {
  /** Not kept: rebuilt after a restore from the messages still ACCEPTED. */
  private readonly queues = new Map<string, AppQueue>();

  constructor(
    private readonly timers: Timers,
    /** Messages per second the app's queue drains at (its rate_limits.outbound, read at each step). */
    private readonly rateOf: (appId: string) => number,
    private readonly onDrained: (m: Message) => void,
  ) {}

  state(appId: string): QueueState {
    const q = this.queues.get(appId);
    return q
      ? { length: q.items.length - q.head, capacity: q.capacity, paused: q.paused, peak: q.peak }
      : { length: 0, capacity: DEFAULT_QUEUE_CAPACITY, paused: false, peak: 0 };
  }

  configure(appId: string, s: { capacity?: number; paused?: boolean }): QueueState {
    const q = this.queue(appId);
    if (s.capacity !== undefined) q.capacity = s.capacity;
    if (s.paused !== undefined) {
      // Resuming drains at the rate from now on, not in a burst for the time spent paused.
      if (q.paused && !s.paused) q.nextAt = Math.max(q.nextAt, Date.now());
      q.paused = s.paused;
    }
    this.arm(appId, q);
    return this.state(appId);
  }

  /** Whole seconds until the queue has room again, or 0 when it has room now. */
  fullFor(appId: string): number {
    const q = this.queues.get(appId);
    if (!q) return 0;
    const over = q.items.length - q.head - q.capacity + 1;
    if (over <= 0) return 0;
    return q.paused ? 1 : Math.max(1, Math.ceil((over * 1000) / this.rateOf(appId) / 1000));
  }

  enqueue(m: Message): void {
    const q = this.queue(m.appId);
    if (q.items.length === q.head) q.nextAt = Math.max(q.nextAt, Date.now());
    q.items.push(m);
    q.peak = Math.max(q.peak, q.items.length - q.head);
    this.arm(m.appId, q);
  }

  reset(): void {
    for (const q of this.queues.values()) q.cancel?.();
    this.queues.clear();
  }

  private queue(appId: string): AppQueue {
    let q = this.queues.get(appId);
    if (!q) {
      q = { items: [], head: 0, nextAt: 0, capacity: DEFAULT_QUEUE_CAPACITY, paused: false, cancel: undefined, armedIn: -1, peak: 0 };
      this.queues.set(appId, q);
    }
    return q;
  }

  private arm(appId: string, q: AppQueue): void {
    const live = q.cancel !== undefined && q.armedIn === this.timers.generation;
    if (live || q.paused || q.items.length === q.head) return;
    q.armedIn = this.timers.generation;
    q.cancel = this.timers.after(Math.max(0, q.nextAt - Date.now()), () => {
      q.cancel = undefined;
      this.drain(appId, q);
    });
  }

  private drain(appId: string, q: AppQueue): void {
    const now = Date.now();
    while (!q.paused && q.head < q.items.length && q.nextAt <= now) {
      const m = q.items[q.head]!;
      q.items[q.head++] = undefined as unknown as Message;
      q.nextAt += 1000 / this.rateOf(appId);
      this.onDrained(m);
    }
    if (q.head === q.items.length) {
      q.items = [];
      q.head = 0;
    } else if (q.head > 1024 && q.head * 2 > q.items.length) {
      q.items = q.items.slice(q.head);
      q.head = 0;
    }
    this.arm(appId, q);
  }
}
