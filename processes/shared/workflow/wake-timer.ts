// A loop's wait for "something happened, or the deadline passed" with one durable timer kept across its waits.
// condition(fn, timeout) starts a timer per wait and cancels it when fn wins: TimerStarted + TimerCanceled each
// time. A timer kept running instead costs nothing more when fn wins; a later wait reuses it, and a run that
// ends before it fires pays only its start.
import { CancellationScope, condition, sleep } from '@temporalio/workflow';

interface Running {
  at: number;
  fired: boolean;
  scope: CancellationScope;
}

export class WakeTimer {
  private timer: Running | undefined;

  /**
   * Waits until `fn` is true (true) or `timeoutMs` has passed (false), as condition(fn, timeoutMs) does.
   * `reuse`: a running timer that fires before the deadline is kept (it wakes the loop early once, and the
   * wait goes on with a timer for the rest); without it, such a timer is cancelled and one for the deadline
   * started, as condition does. A waiter expecting a burst of events soon (a review under way) reuses; one
   * settling into a long watch does not, so a quiet watch is not woken early.
   */
  async wait(fn: () => boolean, timeoutMs: number, reuse = true): Promise<boolean> {
    const due = Date.now() + timeoutMs;
    for (;;) {
      const t = this.timer;
      if (!t || t.fired || t.at > due || (!reuse && t.at < due)) this.start(due);
      const current = this.timer!;
      await condition(() => fn() || current.fired);
      if (fn()) return true;
      if (Date.now() >= due) return false;
      reuse = true; // the timer for the rest of this wait
    }
  }

  private start(at: number): void {
    if (this.timer && !this.timer.fired) this.timer.scope.cancel();
    const scope = new CancellationScope();
    const timer: Running = { at, fired: false, scope };
    this.timer = timer;
    void scope
      .run(() => sleep(Math.max(1, at - Date.now())))
      .then(
        () => (timer.fired = true),
        () => undefined, // cancelled: a newer timer replaced it, or the run is being cancelled
      );
  }
}
