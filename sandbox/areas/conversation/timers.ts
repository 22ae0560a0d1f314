// Timers of the conversation area (queue drains, report delays, webhook fault delays), all stopped
// by clear() on reset and on close, so nothing fires into a sandbox that has moved on.
export class Timers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();
  /** Bumped by clear(): work started before it compares and stops. */
  generation = 0;

  /** Runs `fn` after `ms` unless cleared first; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.pending.set(timer, () => undefined);
    return () => {
      clearTimeout(timer);
      this.pending.delete(timer);
    };
  }

  /** Resolves true after `ms`, or false as soon as clear() runs. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve(true);
      }, ms);
      timer.unref();
      this.pending.set(timer, () => resolve(false));
    });
  }

  clear(): void {
    this.generation++;
    const wake = [...this.pending];
    this.pending.clear();
    for (const [t, onCancel] of wake) {
      clearTimeout(t);
      onCancel();
    }
  }
}

/**
 * Work items that fall due in the order they were added, run by one timer whatever their number
 * (a benchmark queues tens of thousands of delayed reports; one timer each would be wasteful).
 */
export class DueQueue {
  private items: { at: number; run: () => void }[] = [];
  private head = 0;
  private cancel: (() => void) | undefined;
  /** The timers' generation when armed: a Timers.clear() since then has stopped our timer. */
  private armedIn = -1;

  constructor(private readonly timers: Timers) {}

  add(delayMs: number, run: () => void): void {
    this.items.push({ at: Date.now() + delayMs, run });
    if (!this.cancel || this.armedIn !== this.timers.generation) this.arm();
  }

  clear(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.items = [];
    this.head = 0;
  }

  private arm(): void {
    const next = this.items[this.head];
    if (!next) {
      this.items = [];
      this.head = 0;
      return;
    }
    this.armedIn = this.timers.generation;
    this.cancel = this.timers.after(Math.max(0, next.at - Date.now()), () => {
      this.cancel = undefined;
      this.runDue();
    });
  }

  private runDue(): void {
    const now = Date.now();
    while (this.head < this.items.length && this.items[this.head]!.at <= now) this.items[this.head++]!.run();
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.arm();
  }
}
