// The state of one verification process: its tracked status (with the details the status query shows), what
// the platform said, and the flags the main loop and the handlers share. Its methods are the process's small
// decisions: they call nothing and wait for nothing (the platform calls are in send-step.ts and await-step.ts).
import { workflowInfo } from '@temporalio/workflow';
import { HandledMemory } from '../../../shared/workflow/handled-memory.js';
import { trackProcess, type ProcessState } from '../../../shared/workflow/process-state.js';
import { StepTimer } from './step-timer.js';
import { initialDetails, type VerificationDetails } from './verification-details.js';
import { type ReportOutcome, type ResendOutcome, type StartedOutcome, type VerificationInput, type VerificationProcessState } from '../../contract.js';
import { verification as verificationKind } from '../kind.js';

/** How many platform event IDs a process remembers to drop repeated deliveries. */
const KEEP_SEEN = 2_000;

/** How a platform verification ended, as the platform (or a failed SMS delivery) said. */
export interface PlatformOutcome {
  status: string;
  reason?: string;
}

export class VerificationState {
  readonly tracker: ProcessState<VerificationProcessState, VerificationDetails>;
  readonly details: VerificationDetails;
  readonly seenEvents = HandledMemory.ofIds(undefined, KEEP_SEEN);
  readonly reportOutcomes = new HandledMemory<ReportOutcome>();
  readonly resendOutcomes = new HandledMemory<ResendOutcome>();
  /** The current platform verification ended. */
  stepOutcome: PlatformOutcome | undefined;
  /** Sends of the current step: its first and its resends. */
  sendNo = 0;
  lastSendAt = 0;
  /** Until the first platform verification is accepted (or the process ended before that). */
  starting = true;
  resendRequested = false;
  /** The account does not have the current step's method: nothing was sent, the next step follows. */
  methodRefused = false;
  reason: string | undefined;
  /** Platform verifications whose result the platform itself told (callback or status read). */
  readonly platformSaid = new Set<string>();
  /** The workflow task (by history length) in which an update was last answered. */
  answeredInTask = -1;
  /** The platform verification whose SMS receipts were last read from the store (receipts.ts): read once each. */
  receiptsReadFor: string | undefined;
  /** The step's one timer: it wakes the wait, and bounds the wait for the platform's result after a success. */
  readonly timer = new StepTimer();

  constructor(readonly input: VerificationInput) {
    // Listed PENDING from the start (the API sets it): STARTING lasts until the platform accepts, within the
    // start's answer, so a listing never needs it and no upsert is spent on leaving it.
    this.tracker = trackProcess<VerificationProcessState, VerificationDetails>('verification', 'STARTING', initialDetails(input), 'PENDING');
    this.details = this.tracker.status.details;
  }

  get state(): VerificationProcessState {
    return this.tracker.status.state;
  }

  final(): boolean {
    return verificationKind.states.final.includes(this.state);
  }

  currentId(): string | undefined {
    return this.details.current?.verificationId;
  }

  /** Returns an update's outcome, noting the workflow task that answered it: the run closes in a quiet one. */
  answer<T>(outcome: T): T {
    this.answeredInTask = workflowInfo().historyLength;
    return outcome;
  }

  finish(state: VerificationProcessState, why?: string): void {
    if (this.final()) return;
    this.reason = why;
    // An ending without a reason (SUCCESSFUL) needs no last-change memo: the run closes soon after, and the
    // listing's close time says when.
    this.tracker.moveTo(state, why, why ? undefined : { memo: false });
  }

  /** The process's result. */
  result(): { state: VerificationProcessState; reason?: string } {
    return { state: this.state, ...(this.reason ? { reason: this.reason } : {}) };
  }

  /** The started update's answer: the state, and what a client needs to complete the first step. */
  startedView(): StartedOutcome {
    return { ...this.result(), ...(this.details.current ? { current: this.details.current } : {}) };
  }

  record(verificationId: string, status: string, why?: string): void {
    const pv = this.details.platformVerifications.find((v) => v.verificationId === verificationId);
    if (pv) Object.assign(pv, { status }, why ? { reason: why } : {});
  }

  attemptsLeft(): number {
    return Math.max(0, this.input.policy.maxReportAttempts - this.details.attempts);
  }

  /** The code sent last has expired: a report of it is refused. */
  codeExpired(): boolean {
    return Date.now() - this.lastSendAt > this.input.policy.codeExpiryMs;
  }

  /** When a step's wait ends: at the step's own end or when the code sent last expires, whichever is first. */
  waitEnds(stepEndsAt: number): number {
    return Math.min(stepEndsAt, this.lastSendAt + this.input.policy.codeExpiryMs);
  }

  /** How long until a resend is allowed (none or negative: now). */
  resendWait(): number {
    return this.lastSendAt + this.input.policy.resendCooldownMs - Date.now();
  }

  /** The send under way is the process's first. */
  firstSend(step: number): boolean {
    return step === 0 && this.sendNo === 1;
  }

  /** For the process's first send, the time left before the caller's deadline (`startBy`); otherwise undefined. */
  startTimeLeft(step: number): number | undefined {
    return this.firstSend(step) && this.input.startBy !== undefined ? this.input.startBy - Date.now() : undefined;
  }

  /** The fallback chain after a step's wait: its outcome ends the process, or the next step follows (true). */
  nextStep(step: number): boolean {
    const out = this.stepOutcome;
    if (this.final() || !out) return false;
    const { steps } = this.input;
    if (out.status === 'SUCCESSFUL') this.finish('SUCCESSFUL');
    else if (out.status === 'DENIED') this.finish('DENIED', out.reason);
    else if (out.status === 'ABORTED') this.finish('ABORTED', out.reason ?? 'replaced by a newer verification');
    else if (step === steps.length - 1) this.finish(out.status === 'ERROR' ? 'ERROR' : 'FAIL', out.reason);
    else {
      const why = `${out.status}${out.reason ? `: ${out.reason}` : ''}`;
      this.tracker.moveTo('PENDING', `${steps[step]!.method} did not succeed (${why}); falling back to ${steps[step + 1]!.method}`);
      return true;
    }
    return false;
  }
}
