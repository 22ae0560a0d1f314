// Every delay of a sandbox area (reviews, held callbacks, ringing, queue drains) goes through one of these, so a
// reset or the sandbox's close cancels them all: nothing fires into a sandbox that has moved on, and nothing keeps
// the process alive after close. Each area keeps its own instance. Timers are never saved: a persistent sandbox
// keeps what they were for (a due job, an expiresAt) and schedules them again after a restore.

/** setTimeout's ceiling; a longer delay would fire at once. */
const MAX_DELAY_MS = 2_147_483_647;

export class Timers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();
  private readonly byKey = new Map<string, Set<NodeJS.Timeout>>();
  /** Bumped by reset(): work started before it compares and stops. */
  generation = 0;
  private closed = false;

  /**
   * Runs `fn` after `ms` unless cancelled first: by the returned function, cancel(key), reset() or close(). After
   * close() nothing is scheduled: work still finishing while the sandbox closes leaves no timer.
   */
  after(ms: number, fn: () => void, key?: string): () => void {
    if (this.closed) return () => undefined;
    const timer = setTimeout(
      () => {
        this.forget(timer, key);
        fn();
      },
      Math.min(ms, MAX_DELAY_MS),
    );
    timer.unref();
    this.pending.set(timer, () => undefined);
    if (key !== undefined) this.byKey.set(key, (this.byKey.get(key) ?? new Set()).add(timer));
    return () => {
      clearTimeout(timer);
      this.forget(timer, key);
    };
  }

  /** Resolves true after `ms`, or false as soon as reset() runs. */
  sleep(ms: number): Promise<boolean> {
    return this.cancellableSleep(ms).done;
  }

  /** `done` resolves true after `ms`, or false as soon as `cancel` or reset() runs. */
  cancellableSleep(ms: number): { done: Promise<boolean>; cancel: () => void } {
    let cancel: () => void = () => undefined;
    const done = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve(true);
      }, ms);
      timer.unref();
      const stop = () => {
        clearTimeout(timer);
        this.pending.delete(timer);
        resolve(false);
      };
      this.pending.set(timer, stop);
      cancel = stop;
    });
    return { done, cancel };
  }

  /** Drops every timer started with this key (a deleted resource's pending review). */
  cancel(key: string): void {
    for (const t of this.byKey.get(key) ?? []) {
      clearTimeout(t);
      this.pending.delete(t);
    }
    this.byKey.delete(key);
  }

  /** Cancels every timer; sleepers wake with false. */
  reset(): void {
    this.generation++;
    const wake = [...this.pending];
    this.pending.clear();
    this.byKey.clear();
    for (const [t, onCancel] of wake) {
      clearTimeout(t);
      onCancel();
    }
  }

  /** On the sandbox's close: reset(), and nothing is scheduled from then on. */
  close(): void {
    this.closed = true;
    this.reset();
  }

  private forget(timer: NodeJS.Timeout, key: string | undefined): void {
    this.pending.delete(timer);
    if (key === undefined) return;
    const set = this.byKey.get(key);
    set?.delete(timer);
    if (set && set.size === 0) this.byKey.delete(key);
  }
}
