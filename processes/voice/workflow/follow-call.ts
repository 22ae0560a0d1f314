// Following one call to its end. The DiCE callback is a hint that usually ends the wait; when none has come for
// a while the call is read from the platform, so a lost DiCE delays the outcome by checkEveryMs and no more. A
// callout whose answer was lost is "in doubt" until a callback names its call; if none does in time it counts
// as not placed (the only safe way to retry without ringing a phone twice would be a callback, and none came).
import { CancellationScope, condition, proxyActivities, sleep } from '@temporalio/workflow';
import type { CallAttempt, CallOutcome, VoiceActivities, VoiceCallEnded, VoiceFollowSettings } from '../contract.js';
import { platformActivityOptions } from '../../shared/workflow/activity-options.js';

const platform = proxyActivities<VoiceActivities>({ ...platformActivityOptions, scheduleToCloseTimeout: '2 minutes' });

/** A call the platform has not known for this many reads in a row is over (it never existed, or was forgotten). */
const UNKNOWN_READS_TO_GIVE_UP = 3;

/** Records the end of a call on its attempt; the first report wins (a DiCE and a read agree on the end). */
export function applyEnd(attempt: CallAttempt, e: VoiceCallEnded): void {
  if (attempt.state === 'ended') return;
  attempt.state = 'ended';
  attempt.endedAt = e.receivedAt;
  if (!attempt.callId) attempt.callId = e.callId;
  if (e.result) attempt.result = e.result;
  if (e.reason) attempt.reason = e.reason;
  if (e.durationSeconds !== undefined) attempt.durationSeconds = e.durationSeconds;
  attempt.outcome = outcomeOf(attempt);
}

function outcomeOf(attempt: CallAttempt): CallOutcome {
  if (attempt.result === 'ANSWERED') return attempt.amd?.status === 'machine' ? 'machine' : 'answered';
  if (attempt.result === 'BUSY') return 'busy';
  if (attempt.result === 'NOANSWER') return 'noanswer';
  return 'failed';
}

/**
 * Waits with a deadline whose timer is not cancelled when the wait ends on news: a run that completes soon after
 * (a call's end is usually its process's end) writes TimerStarted only, where condition() with a timeout adds
 * TimerCanceled. The next wait, or drop() where the run goes on to wait for something else, cancels it; a timer
 * left pending that fires while the run still waits costs a workflow task, so a process drops it first.
 */
export class Waiter {
  #left: CancellationScope | undefined;

  /** True once `done` holds, false when `ms` passed first. */
  async until(done: () => boolean, ms: number): Promise<boolean> {
    this.drop();
    if (done()) return true;
    const scope = new CancellationScope();
    this.#left = scope;
    const won = await scope.run(() => Promise.race([sleep(ms).then(() => false), condition(done).then(() => true)]));
    // The time ran out: only the condition is pending, and cancelling it writes nothing.
    if (!won) this.drop();
    return won;
  }

  /** Cancels the timer the last wait left pending. */
  drop(): void {
    const left = this.#left;
    this.#left = undefined;
    left?.cancel();
  }
}

export interface FollowOptions extends VoiceFollowSettings {
  baseUrl?: string;
  /** Set by the process's signal handler when the DiCE (or a read) ended the call. */
  ended: () => VoiceCallEnded | undefined;
  /** When given, a wait ends on news only once this holds (the update handlers have answered; see callout.ts). */
  answered?: () => boolean;
  /** The waits' timers (see Waiter); the caller's, when it waits again after the call. */
  waiter?: Waiter;
}

export async function followCall(attempt: CallAttempt, opts: FollowOptions): Promise<void> {
  const now = () => new Date().toISOString();
  let unknownReads = 0;
  const answered = opts.answered ?? (() => true);
  const waiter = opts.waiter ?? new Waiter();
  while (attempt.state !== 'ended') {
    const report = opts.ended();
    if (report) {
      applyEnd(attempt, report);
      return;
    }
    if (!attempt.callId) {
      // In doubt: only a callback can name the call. None in time: it was not placed.
      const heard = await waiter.until(() => (attempt.callId !== undefined || opts.ended() !== undefined) && answered(), opts.inDoubtWaitMs);
      if (!heard && attempt.callId === undefined && opts.ended() === undefined)
        applyEnd(attempt, {
          callId: '',
          result: 'FAILED',
          reason: `no callback named the call within ${opts.inDoubtWaitMs} ms after the callout's answer was lost: taken as not placed`,
          receivedAt: now(),
          source: 'read',
        });
      continue;
    }
    if (await waiter.until(() => opts.ended() !== undefined && answered(), opts.checkEveryMs)) continue;
    const info = await platform.readVoiceCall({ callId: attempt.callId, ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}) });
    if (!info && ++unknownReads >= UNKNOWN_READS_TO_GIVE_UP) {
      applyEnd(attempt, { callId: attempt.callId, result: 'FAILED', reason: 'the platform does not know the call', receivedAt: now(), source: 'read' });
    } else if (info?.status === 'FINAL') {
      applyEnd(attempt, {
        callId: attempt.callId,
        receivedAt: now(),
        source: 'read',
        ...(info.result ? { result: info.result } : {}),
        ...(info.reason ? { reason: info.reason } : {}),
        ...(info.duration !== undefined ? { durationSeconds: info.duration } : {}),
      });
    } else if (info?.result === 'ANSWERED' && attempt.state === 'ringing') {
      // The ACE was lost or fell back: the call is up all the same.
      attempt.state = 'answered';
    }
  }
}

export const hangupCall = (callId: string, baseUrl?: string) => platform.hangupVoiceCall({ callId, ...(baseUrl ? { baseUrl } : {}) });
export const placeCallout = platform.placeVoiceCallout;
