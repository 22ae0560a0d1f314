// A call's events answered from its plan, applied once each and in order of `seq`: the intake's relay may repeat a
// batch (another API instance, a retry after a lost answer) or deliver a later batch first; what is not next yet
// waits for its turn.
import type { VoiceRecordedEvent } from '../contract.js';

export class InOrder {
  #applied = 0;
  readonly #early = new Map<number, VoiceRecordedEvent>();

  constructor(private readonly apply: (item: VoiceRecordedEvent) => void) {}

  take(items: readonly VoiceRecordedEvent[]): void {
    for (const item of items) if (item.seq > this.#applied) this.#early.set(item.seq, item);
    for (let next = this.#early.get(this.#applied + 1); next; next = this.#early.get(this.#applied + 1)) {
      this.#early.delete(++this.#applied);
      this.apply(next);
    }
  }
}
