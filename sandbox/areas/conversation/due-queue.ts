// A queue of delayed work run by one timer of the area's Timers, whatever its length.
import type { Timers } from '../../core/timers.js';

/**
 * Work items that fall due in the order they were added, run by one timer whatever their number
 * (a benchmark queues tens of thousands of delayed reports; one timer each would be wasteful).
 */
export class DueQueue {
  private items: { at: number; run: () => void }[] = [];
  private head = 0;
  private cancel: (() => void) | undefined;
  /** The timers' generation when armed: a Timers.reset() since then has stopped our timer. */
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
