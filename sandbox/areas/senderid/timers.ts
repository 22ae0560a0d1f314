// Timers of the sender ID area (review steps, uploads, held and delayed callbacks), cleared on reset
// and on close so nothing fires into a sandbox that has moved on.
export class Timers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();
  private readonly byKey = new Map<string, Set<NodeJS.Timeout>>();
  /** Bumped by clear(): work started before it checks this and stops. */
  generation = 0;

  /** Runs `fn` after `ms` unless cleared first; cancel(key) drops it (a deleted registration's review). */
  after(ms: number, fn: () => void, key?: string): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      if (key !== undefined) this.byKey.get(key)?.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.pending.set(timer, () => undefined);
    if (key !== undefined) this.byKey.set(key, (this.byKey.get(key) ?? new Set()).add(timer));
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

  cancel(key: string): void {
    for (const t of this.byKey.get(key) ?? []) {
      clearTimeout(t);
      this.pending.delete(t);
    }
    this.byKey.delete(key);
  }

  clear(): void {
    this.generation++;
    const wake = [...this.pending];
    this.pending.clear();
    this.byKey.clear();
    for (const [t, onCancel] of wake) {
      clearTimeout(t);
      onCancel();
    }
  }
}
