// How a provisioning process follows its platform resource: webhook events (deduplicated by eventId),
// snapshots read from the platform (create answers, polls), the polling fallback and the overdue
// deadline. Carried across continue-as-new.
//
// Nothing moves backwards: each piece of state (an "aspect": the resource state, one operator's status,
// the quality score...) remembers the sequence and time of what set it last. An event changes an aspect
// only when its sequence is higher and it is not older than a snapshot that set the aspect; a snapshot
// only when it is not older than what set the aspect. Independent facts (two operators) never shadow
// each other, whatever order their webhooks arrive in.
//
// An event without a sequence orders nothing (the platform does not promise one): it is a hint. Its
// comment is kept, its fields change nothing, and the process reads the resource from the platform.
import type { ProvisioningEvent, FollowSettings } from '../contract.js';
import { HandledMemory } from '../../shared/workflow/handled-memory.js';

/** One event as the process saw it: applied, or kept without effect (and why). */
interface EventNote {
  eventId: string;
  trigger: string;
  /** The resource it named: a process may follow two (its own and a CHATA business account). */
  resourceType: ProvisioningEvent['resourceType'];
  resourceId: string;
  sequence?: number;
  eventTime: string;
  applied: boolean;
  /** An event without a sequence: it made the process read the resource instead. */
  hint?: true;
  note?: string;
}

export interface CommentNote {
  text: string;
  at: string;
  author?: string;
  /** The event that brought it, when it came by webhook. */
  eventId?: string;
}

/** What every provisioning process shows in its details. */
export interface FollowDetails {
  events: EventNote[];
  comments: CommentNote[];
  /** Sequence of the newest event applied. */
  lastSequence: number;
  duplicateEvents: number;
  polls: number;
  lastPolledAt?: string;
  overdue: boolean;
  overdueSince?: string;
  /** Reads of the resource that events without a sequence asked for. */
  hintReads?: number;
}

interface AspectMark {
  seq: number;
  /** ms since the epoch of the event or snapshot that set it. */
  time: number;
}

/** Internal state that survives continue-as-new. */
export interface FollowCarry {
  seenEventIds: string[];
  aspects: Record<string, AspectMark>;
  lastHeardAt: number;
  reviewSince?: number;
  queued: ProvisioningEvent[];
  /** Triggers of the hints drained since the resource was last read for them. */
  readDue?: string[];
}

/** Offered to the code that applies an event or a snapshot: true when the aspect may change now. */
export type Take = (aspect: string) => boolean;

const KEEP_EVENTS = 100;
const KEEP_COMMENTS = 100;
const KEEP_SEEN = 2_000;

export const initialFollowDetails = (): FollowDetails => ({ events: [], comments: [], lastSequence: 0, duplicateEvents: 0, polls: 0, overdue: false });

const timeOf = (iso: string | undefined) => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? undefined : t;
};

/** Sequence order; hints (no sequence) last, in arrival order, so the read they ask for comes after. */
const bySequence = (a: ProvisioningEvent, b: ProvisioningEvent) =>
  a.sequence === undefined ? (b.sequence === undefined ? 0 : 1) : b.sequence === undefined ? -1 : a.sequence - b.sequence;

export class ResourceFollower {
  private readonly seen: HandledMemory<true>;
  private readonly carry: Omit<FollowCarry, 'seenEventIds'>;

  constructor(
    private readonly d: FollowDetails,
    private readonly settings: FollowSettings,
    carried?: FollowCarry,
  ) {
    const { seenEventIds, ...carry } = carried ?? { seenEventIds: [], aspects: {}, lastHeardAt: Date.now(), queued: [] };
    this.seen = HandledMemory.ofIds(seenEventIds, KEEP_SEEN);
    this.carry = carry;
  }

  /** Signal handler body: drops duplicates, queues the rest for the main loop. */
  receive(e: ProvisioningEvent): void {
    if (!this.seen.firstTime(e.eventId)) {
      this.d.duplicateEvents += 1;
      return;
    }
    this.carry.queued.push(e);
    this.carry.lastHeardAt = Date.now();
  }

  hasQueued(): boolean {
    return this.carry.queued.length > 0;
  }

  /**
   * Applies the queued events in sequence order. `apply` asks for each aspect it would change; an event
   * whose every aspect is already newer is recorded as stale (its comment is kept all the same).
   */
  drain(apply: (e: ProvisioningEvent, take: Take) => string | void): void {
    const batch = this.carry.queued.splice(0).sort(bySequence);
    for (const e of batch) {
      if (e.comment) this.addComment({ text: e.comment, at: e.eventTime, author: 'platform', eventId: e.eventId });
      const seq = e.sequence;
      if (seq === undefined) {
        this.carry.readDue = [...new Set([...(this.carry.readDue ?? []), e.trigger])];
        this.d.events.push({
          eventId: e.eventId,
          trigger: e.trigger,
          resourceType: e.resourceType,
          resourceId: e.resourceId,
          eventTime: e.eventTime,
          applied: false,
          hint: true,
          note: 'no sequence: a hint; the resource is read from the platform',
        });
        continue;
      }
      // A receive time (the platform sent none) orders nothing: only the sequence does.
      const t = e.timeReceived ? undefined : (timeOf(e.eventTime) ?? 0);
      let asked = 0;
      const stale: string[] = [];
      const take: Take = (aspect) => {
        asked += 1;
        const mark = this.carry.aspects[aspect];
        if (mark && (seq <= mark.seq || (t !== undefined && t < mark.time))) {
          stale.push(mark.seq >= seq ? `${aspect} already at sequence ${mark.seq}` : `${aspect} read from the platform later`);
          return false;
        }
        this.carry.aspects[aspect] = { seq, time: t ?? mark?.time ?? 0 };
        return true;
      };
      const note = apply(e, take) || undefined;
      const applied = asked === 0 || stale.length < asked;
      if (applied) this.d.lastSequence = Math.max(this.d.lastSequence, seq);
      const why = applied ? note : `stale: ${stale.join('; ')}`;
      this.d.events.push({
        eventId: e.eventId,
        trigger: e.trigger,
        resourceType: e.resourceType,
        resourceId: e.resourceId,
        sequence: seq,
        eventTime: e.eventTime,
        applied,
        ...(why ? { note: why } : {}),
      });
    }
    if (this.d.events.length > KEEP_EVENTS) this.d.events.splice(0, this.d.events.length - KEEP_EVENTS);
  }

  /**
   * A resource read from the platform (at `updateTime`): its comments are kept, and `take` says which
   * aspects it may set (not those an event newer than the read has set).
   */
  snapshot(updateTime: string | undefined, comments?: { text: string; at: string; author?: string }[]): Take {
    for (const c of comments ?? []) this.addComment(c);
    const t = timeOf(updateTime);
    return (aspect) => {
      if (t === undefined) return true;
      const mark = this.carry.aspects[aspect];
      if (mark && t < mark.time) return false;
      this.carry.aspects[aspect] = { seq: mark?.seq ?? 0, time: t };
      return true;
    };
  }

  /** Kept once per text: the same remark arrives by webhook and in the resource's comment list. */
  addComment(c: CommentNote): void {
    if (this.d.comments.some((x) => x.text === c.text)) return;
    this.d.comments.push(c);
    if (this.d.comments.length > KEEP_COMMENTS) this.d.comments.shift();
  }

  /** The triggers of hints drained since the last read for them: the caller reads, then calls `hintRead`. */
  readDue(): string[] | undefined {
    return this.carry.readDue?.length ? this.carry.readDue : undefined;
  }

  hintRead(): void {
    delete this.carry.readDue;
    this.carry.lastHeardAt = Date.now();
    this.d.hintReads = (this.d.hintReads ?? 0) + 1;
  }

  pollDue(): boolean {
    return Date.now() - this.carry.lastHeardAt >= this.settings.pollIntervalMs;
  }

  polled(): void {
    this.carry.lastHeardAt = Date.now();
    this.d.polls += 1;
    this.d.lastPolledAt = new Date().toISOString();
  }

  /**
   * Tracks whether a decision is awaited. Returns the words for the history when the wait has just
   * become overdue (once per review round); a decision ends the round.
   */
  trackReview(awaiting: boolean): string | undefined {
    const now = Date.now();
    if (!awaiting) {
      this.carry.reviewSince = undefined;
      this.d.overdue = false;
      delete this.d.overdueSince;
      return undefined;
    }
    this.carry.reviewSince ??= now;
    if (this.d.overdue || now - this.carry.reviewSince < this.settings.overdueAfterMs) return undefined;
    this.d.overdue = true;
    this.d.overdueSince = new Date(now).toISOString();
    return `overdue: no decision ${Math.round((now - this.carry.reviewSince) / 1000)} s after the review began (deadline ${Math.round(this.settings.overdueAfterMs / 1000)} s); still waiting`;
  }

  /** Milliseconds until the next poll or the overdue deadline, whichever comes first (at least 1). */
  msUntilDue(): number {
    const now = Date.now();
    let due = this.carry.lastHeardAt + this.settings.pollIntervalMs;
    if (this.carry.reviewSince !== undefined && !this.d.overdue) due = Math.min(due, this.carry.reviewSince + this.settings.overdueAfterMs);
    return Math.max(1, due - now);
  }

  toCarry(): FollowCarry {
    return { seenEventIds: this.seen.ids(), ...this.carry, aspects: { ...this.carry.aspects }, queued: [...this.carry.queued] };
  }
}
