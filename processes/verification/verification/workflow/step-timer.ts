// A verification's one timer: it wakes the step's wait at the time asked, and is left pending when the run
// completes (a run that ends with a timer pending writes nothing for it; a cancelled one writes TimerCanceled).
import { CancellationScope, sleep } from '@temporalio/workflow';

export class StepTimer {
  private scope: CancellationScope | undefined;
  private at = 0;
  /** The timer set last has fired. */
  fired = false;

  /** A timer is running: it will wake the run. */
  get pending(): boolean {
    return this.scope !== undefined && !this.fired;
  }

  /**
   * Wakes the run at `at` (epoch ms, workflow time): kept when the running timer is for that time already,
   * else that one is cancelled (it would wake the run for nothing) and a new one started.
   */
  wakeAt(at: number): void {
    if (this.pending && this.at === at) return;
    this.cancel();
    const scope = new CancellationScope();
    this.scope = scope;
    this.at = at;
    this.fired = false;
    scope
      .run(() => sleep(Math.max(1, at - Date.now())))
      .then(
        () => {
          if (this.scope === scope) this.fired = true;
        },
        () => undefined, // cancelled: a newer timer replaced it
      );
  }

  /** Cancels the running timer, if any: for a run that goes on past what it waited for (the next step). */
  cancel(): void {
    if (this.pending) this.scope!.cancel();
    this.scope = undefined;
  }
}
