// A live sender's health while its process watches it after ACTIVE: the quality rating and messaging limit the
// platform reports (CHATA_SENDER_QUALITY_RATING_CHANGED, CHATA_SENDER_DAILY_LIMIT_CHANGED, or a read of the sender)
// kept in the details as `health`. Each change is a history entry with its reason and a process event, the state
// unchanged: a quality drop is news, not an end. The onboarding is not told (it follows outcomes only).
import type { ProvisioningEvent } from '../contract.js';
import type { ProcessState } from '../../shared/workflow/process-state.js';
import { emitProcessEvent } from '../../shared/workflow/process-events.js';
import type { Take } from './follow.js';

/** The change ID of the watch after ACTIVE (docs/upgrades.md): runs from before it end at ACTIVE. */
export const SENDER_WATCH_PATCH = 'sender-watch-after-active';
/** The same for CHATB senders, which came to be watched later: an INACTIVE after ACTIVE ends their process FAILED. */
export const CHATB_SENDER_WATCH_PATCH = 'chatb-sender-watch-after-active';

export interface SenderHealth {
  qualityRating?: string;
  messagingLimit?: string;
  /** When the newest change was told. */
  at: string;
}

type Told = Partial<Pick<SenderHealth, 'qualityRating' | 'messagingLimit'>>;

const WORDS: Record<keyof Told, string> = { qualityRating: 'quality rating', messagingLimit: 'messaging limit' };
const BY_TRIGGER: Partial<Record<string, keyof Told>> = {
  CHATA_SENDER_QUALITY_RATING_CHANGED: 'qualityRating',
  CHATA_SENDER_DAILY_LIMIT_CHANGED: 'messagingLimit',
};

/** What a health event tells (an empty object when it names no value), or undefined for another event. */
export function healthOfEvent(e: ProvisioningEvent): Told | undefined {
  const field = BY_TRIGGER[e.trigger];
  if (!field) return undefined;
  const value = e.details[field];
  return typeof value === 'string' && value ? { [field]: value } : {};
}

/** What a read of the sender tells (only the fields it has). */
export function healthOfSender(s: Told): Told {
  return {
    ...(s.qualityRating ? { qualityRating: s.qualityRating } : {}),
    ...(s.messagingLimit ? { messagingLimit: s.messagingLimit } : {}),
  };
}

export class SenderHealthWatch {
  constructor(
    private readonly d: { health?: SenderHealth },
    private readonly tracker: ProcessState<string, unknown>,
    private readonly kind: string,
  ) {}

  /** Applies what `why` told (each field an aspect of its own: an older event never undoes a newer one); the note for the event list. */
  apply(told: Told, take: Take, why: string): string {
    const fields = Object.keys(told) as (keyof Told)[];
    if (fields.length === 0) return 'no qualityRating or messagingLimit in the event';
    const before = this.d.health;
    const changed = fields.filter((f) => told[f] !== before?.[f] && take(f));
    if (changed.length === 0) return 'health unchanged';
    const at = new Date().toISOString();
    this.d.health = { ...before, ...Object.fromEntries(changed.map((f) => [f, told[f]])), at };
    const words = changed.map((f) => `${WORDS[f]} ${before?.[f] ?? 'unknown'} -> ${told[f]}`).join(', ');
    const reason = `health: ${words} (${why})`;
    const state = this.tracker.status.state;
    this.tracker.moveTo(state, reason);
    // The state is unchanged, so the tracker emits no event: this one carries the reason to the subscribers.
    emitProcessEvent(this.kind, { state, previousState: state, at: this.tracker.status.since, reason });
    return words;
  }
}
