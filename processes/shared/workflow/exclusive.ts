// One change to a platform resource at a time: an update from the API and the process's own change (an automatic
// resubmission, a relaunch) never race.
import { condition } from '@temporalio/workflow';

export class Exclusive {
  private running = false;

  /** A change is under way (the main loop waits rather than read a resource being changed). */
  get busy(): boolean {
    return this.running;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await condition(() => !this.running);
    this.running = true;
    try {
      return await fn();
    } finally {
      this.running = false;
    }
  }
}
