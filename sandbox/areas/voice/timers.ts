// Every delay of the voice switch (ringing, saying, menu timeouts, callee hang-ups) goes through here, so a
// reset or the sandbox's close cancels them all: nothing fires into a sandbox that has moved on, and nothing
// keeps the process alive after close.
export class Timers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();

  /** Runs `fn` after `ms` unless cancelled first (by the returned function or clear()). */
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

  /** `done` resolves true after `ms`, or false as soon as `cancel` or clear() runs. */
  sleep(ms: number): { done: Promise<boolean>; cancel: () => void } {
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

  clear(): void {
    const wake = [...this.pending];
    this.pending.clear();
    for (const [t, onCancel] of wake) {
      clearTimeout(t);
      onCancel();
    }
  }
}
