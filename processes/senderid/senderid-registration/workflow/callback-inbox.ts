// The platform's callbacks to a sender ID registration process, each only a hint to read the registration: a
// repeated delivery (same eventId) is counted and dropped, the rest wait for the main loop's next read.
import type { SenderIdCallbackHint, SenderIdRegistrationDetails } from '../contract.js';
import { HandledMemory } from '../../../shared/workflow/handled-memory.js';

const KEEP_SEEN = 2_000;

export class CallbackInbox {
  private readonly seen: HandledMemory<true>;
  private readonly queued: SenderIdCallbackHint[] = [];

  /** `seenEventIds`: the previous run's `seenIds()`. */
  constructor(
    private readonly details: SenderIdRegistrationDetails,
    seenEventIds: string[] | undefined,
  ) {
    this.seen = HandledMemory.ofIds(seenEventIds, KEEP_SEEN);
  }

  get waiting(): boolean {
    return this.queued.length > 0;
  }

  heard(hint: SenderIdCallbackHint): void {
    if (!this.seen.firstTime(hint.eventId)) {
      this.details.duplicateCallbacks += 1;
      return;
    }
    this.details.callbacks += 1;
    this.queued.push(hint);
  }

  /** Empties the inbox; says which callbacks the read is for. */
  take(): string {
    const batch = this.queued.splice(0);
    return `read after callback ${batch.map((h) => `${h.eventType}${h.registrationState ? ` ${h.registrationState}` : ''}`).join(', ')}`;
  }

  seenIds(): string[] {
    return this.seen.ids();
  }
}
