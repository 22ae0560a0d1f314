// Phone-number verification: one durable process per verification, walking a fallback chain of methods.
// Codes and CLIs arrive by update (the API), results by signal (callbacks) or by polling the platform.
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  isCancellation,
  patched,
  proxyLocalActivities,
  setHandler,
  TimeoutFailure,
  workflowInfo,
} from '@temporalio/workflow';
import type { VerificationActivities } from '../../contracts/verification.js';
import { platformLocalActivityOptions } from '../shared/activity-options.js';
import { failureType, rootMessage } from '../shared/failure-text.js';
import { HandledMemory } from '../shared/handled-memory.js';
import { START_MARGIN_MS, startActivityOptions } from './activity-options.js';
import { trackProcess } from '../shared/process-state.js';
import {
  cancelUpdate,
  FINAL_VERIFICATION_STATES,
  platformEventSignal,
  platformReference,
  reportUpdate,
  resendUpdate,
  startedUpdate,
  VERIFICATION_REASONS,
  type PlatformVerificationEvent,
  type ReportOutcome,
  type ResendOutcome,
  type StepStartInfo,
  type VerificationInput,
  type VerificationProcessState,
} from '../../contracts/verification.js';

// Local activities: each platform call runs inside the workflow task that needs it (see activity-options).
// The start has its own deadline (activity-options.ts), per call: the first send is bounded by the caller's.
const { reportCode, getVerificationStatus } = proxyLocalActivities<VerificationActivities>(platformLocalActivityOptions);
const startVerification = (input: Parameters<VerificationActivities['startVerification']>[0], withinMs?: number) =>
  proxyLocalActivities<VerificationActivities>(startActivityOptions(withinMs)).startVerification(input);

/** How many platform event IDs a process remembers to drop repeated deliveries. */
const KEEP_SEEN = 2_000;
/** How long a run reported SUCCESSFUL stays open for the platform's own result callback. */
const CONFIRMATION_WAIT_MS = 10_000;

interface VerificationDetails {
  identity: string;
  reference?: string;
  /** The caller's own `custom`: kept here, never sent to the platform (its `custom` carries the routing token). */
  custom?: string;
  steps: { method: string; timeoutMs: number }[];
  currentStep: number;
  current?: StepStartInfo;
  attempts: number;
  resends: number;
  smsDelivery?: string;
  /** Platform verifications of this process, newest last. */
  platformVerifications: { verificationId: string; token: string; step: number; method: string; status: string; reason?: string; language?: string }[];
}

const isFinal = (s: VerificationProcessState) => FINAL_VERIFICATION_STATES.includes(s);
const POLLED_METHODS = ['callout', 'seamless'];

/**
 * A step's wait ends on an outcome (a report, a cancel, a callback) only once the update handlers have answered:
 * before it, cancelling the wait's timer and an update's answer came in an order that depended on the workflow
 * interceptors' awaits. Handlers that wait for the loop (start, resend) end once the process is final or resent.
 */
export const VERIFICATION_AFTER_HANDLERS_PATCH = 'verification-after-handlers';

export async function verification(input: VerificationInput): Promise<{ state: VerificationProcessState; reason?: string }> {
  const afterHandlers = patched(VERIFICATION_AFTER_HANDLERS_PATCH);
  const answered = () => !afterHandlers || allHandlersFinished();
  const { policy } = input;
  const tracker = trackProcess<VerificationProcessState, VerificationDetails>('verification', 'STARTING', {
    identity: input.identity,
    ...(input.reference ? { reference: input.reference } : {}),
    ...(input.custom ? { custom: input.custom } : {}),
    steps: input.steps,
    currentStep: 0,
    attempts: 0,
    resends: 0,
    platformVerifications: [],
  });
  const d = tracker.status.details;
  const seenEvents = HandledMemory.ofIds(undefined, KEEP_SEEN);
  const reportOutcomes = new HandledMemory<ReportOutcome>();
  let stepOutcome: { status: string; reason?: string } | undefined; // the current platform verification ended
  let sendNo = 0;
  let lastSendAt = 0;
  let starting = true;
  let resendRequested = false;
  let reason: string | undefined;
  /** Platform verifications whose result the platform itself told (callback or status read). */
  const platformSaid = new Set<string>();
  /** The workflow task (by history length) in which an update was last answered. */
  let answeredInTask = -1;
  const answer = <T>(outcome: T): T => {
    answeredInTask = workflowInfo().historyLength;
    return outcome;
  };

  const finish = (state: VerificationProcessState, why?: string) => {
    if (isFinal(tracker.status.state)) return;
    reason = why;
    tracker.moveTo(state, why);
  };
  const final = () => isFinal(tracker.status.state);
  const currentId = () => d.current?.verificationId;
  const record = (verificationId: string, status: string, why?: string) => {
    const pv = d.platformVerifications.find((v) => v.verificationId === verificationId);
    if (pv) Object.assign(pv, { status }, why ? { reason: why } : {});
  };

  // Answers once the first platform verification is accepted (or the process ended before that).
  setHandler(startedUpdate, async () => {
    await condition(() => !starting || final());
    return answer({ state: tracker.status.state, ...(reason ? { reason } : {}), ...(d.current ? { current: d.current } : {}) });
  });

  setHandler(platformEventSignal, (e: PlatformVerificationEvent) => {
    if (!seenEvents.firstTime(e.eventId)) return;
    if (e.kind === 'sms-delivered') {
      if (e.verificationId === currentId()) d.smsDelivery = e.smsResult;
      if (e.verificationId === currentId() && e.smsResult === 'Failed') stepOutcome = { status: 'FAIL', reason: 'SMS delivery failure' };
      return;
    }
    if (!e.status || e.status === 'PENDING') return;
    platformSaid.add(e.verificationId);
    record(e.verificationId, e.status, e.reason);
    // Results of superseded verifications (a resend or an earlier step) do not move the process.
    if (e.verificationId === currentId()) stepOutcome = { status: e.status, ...(e.reason ? { reason: e.reason } : {}) };
  });

  setHandler(
    reportUpdate,
    async ({ code, operationId }) => {
      const known = reportOutcomes.get(operationId);
      if (known) return answer(known); // a retried report changes nothing
      const left = () => Math.max(0, policy.maxReportAttempts - d.attempts);
      const refuse = (why: string): ReportOutcome => ({ accepted: false, state: tracker.status.state, reason: why, attemptsLeft: left() });
      let outcome: ReportOutcome;
      if (final()) outcome = refuse(`the verification is already ${tracker.status.state}`);
      else if (!d.current || starting) outcome = refuse('no verification is waiting for a code yet');
      else if (d.current.method === 'seamless') outcome = refuse('a Data (seamless) verification completes on the device, not by a code');
      else if (left() === 0) outcome = refuse('no report attempts left');
      else if (Date.now() - lastSendAt > policy.codeExpiryMs) outcome = refuse('the code has expired; ask for a resend');
      else {
        d.attempts += 1;
        const target = d.current;
        const res = await reportCode({ verificationId: target.verificationId, method: target.method as 'sms' | 'flashcall' | 'callout', code });
        if (res.status === 'SUCCESSFUL') {
          record(target.verificationId, 'SUCCESSFUL');
          finish('SUCCESSFUL');
        } else if (left() === 0) {
          finish('FAIL', `${res.reason ?? 'Invalid code'}; no report attempts left`);
        }
        outcome = {
          accepted: true,
          state: tracker.status.state,
          result: res.status === 'SUCCESSFUL' ? 'SUCCESSFUL' : 'FAIL',
          ...(res.status === 'SUCCESSFUL' ? {} : { reason: res.reason ?? 'Invalid code' }),
          attemptsLeft: left(),
        };
      }
      reportOutcomes.set(operationId, outcome);
      return answer(outcome);
    },
    {
      validator: ({ code }) => {
        if (!/^[A-Za-z0-9+]{1,32}$/.test(code)) throw new Error('code: must be 1-32 letters or digits');
      },
    },
  );

  const resendOutcomes = new HandledMemory<ResendOutcome>();
  setHandler(resendUpdate, async ({ operationId }) => {
    const known = resendOutcomes.get(operationId);
    if (known) return answer(known);
    let outcome: ResendOutcome;
    const wait = lastSendAt + policy.resendCooldownMs - Date.now();
    if (final()) outcome = { resent: false, reason: `the verification is already ${tracker.status.state}` };
    else if (starting || !d.current) outcome = { resent: false, reason: 'the verification has not started yet', retryAfterMs: 1000 };
    else if (d.resends >= policy.maxResends) outcome = { resent: false, reason: `at most ${policy.maxResends} resends` };
    else if (wait > 0) outcome = { resent: false, reason: 'resend cooldown', retryAfterMs: wait };
    else {
      d.resends += 1;
      resendRequested = true;
      const before = currentId();
      await condition(() => currentId() !== before || final() || !resendRequested);
      outcome = { resent: currentId() !== before, ...(d.current ? { current: d.current } : {}) };
    }
    resendOutcomes.set(operationId, outcome);
    return answer(outcome);
  });

  setHandler(cancelUpdate, ({ reason: why }) => {
    finish('CANCELLED', why ?? 'cancelled through the API');
    return answer({ state: tracker.status.state });
  });

  /** Starts (or resends) the current step on the platform; false when the process ended instead. */
  async function send(step: number): Promise<boolean> {
    const { method } = input.steps[step]!;
    sendNo += 1;
    const token = platformReference(input.platformReferencePrefix, step, sendNo);
    const first = step === 0 && sendNo === 1;
    // The caller gave up at startBy (504): a first send after it would be an SMS nobody waits for.
    const left = first && input.startBy !== undefined ? input.startBy - Date.now() : undefined;
    if (left !== undefined && left < 0) {
      finish(
        'ABANDONED',
        `${VERIFICATION_REASONS.startedLate}: the process first ran ${Math.ceil(-left / 1000)} s after the caller's deadline; nothing was sent`,
      );
      return false;
    }
    try {
      const started = await startVerification(
        {
          identity: input.identity,
          method,
          token,
          ...(input.reference ? { reference: input.reference } : {}),
          // Nothing can have been sent before the first send of the run's first workflow task.
          firstTry: first && workflowInfo().historyLength <= FIRST_TASK_HISTORY_LENGTH,
          ...(input.language ? { language: input.language } : {}),
          ...(method === 'sms' ? { sms: { expiryMs: policy.codeExpiryMs } } : {}),
        },
        left === undefined ? undefined : left - START_MARGIN_MS,
      );
      d.current = {
        step,
        method,
        verificationId: started.verificationId,
        ...(started.contentLanguage ? { language: started.contentLanguage } : {}),
        ...(started.sms ? { sms: started.sms } : {}),
        ...(started.flashCall ? { flashCall: started.flashCall } : {}),
        ...(started.callout ? { callout: started.callout } : {}),
        ...(started.seamless ? { seamless: started.seamless } : {}),
      };
      d.platformVerifications.push({
        verificationId: started.verificationId,
        token,
        step,
        method,
        status: 'PENDING',
        ...(started.contentLanguage ? { language: started.contentLanguage } : {}),
      });
      d.smsDelivery = undefined;
      lastSendAt = Date.now();
      // A resumed start (the first answer was lost) may find the verification already decided.
      stepOutcome = started.status !== 'PENDING' ? { status: started.status, ...(started.reason ? { reason: started.reason } : {}) } : undefined;
      tracker.moveTo('PENDING', step === 0 && sendNo === 1 ? `${method} sent` : `${method} sent (step ${step + 1}, send ${sendNo})`);
      return true;
    } catch (err) {
      const type = failureType(err);
      if (type === 'PlatformDeniedError') finish('DENIED', rootMessage(err));
      else if (isUnavailable(err))
        finish('ERROR', `${VERIFICATION_REASONS.platformUnavailable}: the platform did not accept the ${method} start in time; it is not retried`);
      else finish('ERROR', rootMessage(err));
      return false;
    }
  }

  /** Waits for the current platform verification to end, for the step's time, polling where the platform wants it. */
  async function awaitStep(step: number): Promise<void> {
    const { method, timeoutMs } = input.steps[step]!;
    const stepDeadline = Date.now() + timeoutMs;
    const deadline = () => Math.min(stepDeadline, lastSendAt + policy.codeExpiryMs);
    const pollEvery = POLLED_METHODS.includes(method) ? Math.max(1, d.current?.callout?.pollingInterval ?? 2) * 1000 : 0;
    let nextPoll = POLLED_METHODS.includes(method) ? lastSendAt + Math.max(0, d.current?.callout?.startPollingAfter ?? 1) * 1000 : Infinity;
    for (;;) {
      if (final() || stepOutcome) return;
      if (resendRequested) {
        const sent = await send(step);
        resendRequested = false; // only now: the resend update waits for the new verification
        if (!sent) return;
        nextPoll = POLLED_METHODS.includes(method) ? Date.now() + pollEvery : Infinity;
        continue;
      }
      const now = Date.now();
      if (now >= deadline()) {
        await pollOnce(); // a lost callback delays nothing: ask the platform before giving up on the step
        if (!final() && !stepOutcome) stepOutcome = { status: 'FAIL', reason: 'Expired' };
        return;
      }
      const wake = Math.min(deadline(), nextPoll) - now;
      // A resend waits for the loop, so it wakes the loop at once; an outcome waits for the handlers' answers.
      const woke = await condition(() => ((final() || !!stepOutcome) && answered()) || resendRequested, Math.max(1, wake));
      if (!woke && Date.now() >= nextPoll) {
        await pollOnce();
        nextPoll = Date.now() + pollEvery;
      }
    }
  }

  async function pollOnce(): Promise<void> {
    const id = currentId();
    if (!id) return;
    const s = await getVerificationStatus({ verificationId: id });
    if (s.status !== 'PENDING') platformSaid.add(id);
    if (s.status !== 'PENDING' && id === currentId() && !stepOutcome) {
      record(id, s.status, s.reason);
      stepOutcome = { status: s.status, ...(s.reason ? { reason: s.reason } : {}) };
    }
  }

  /**
   * Lets update handlers answer, then closes the run in a workflow task that answered none. Temporal
   * refuses a task that closes the run while a callback's signal arrived meanwhile (UnhandledCommand), and
   * the updates answered in that task would be lost to their callers. A run reported SUCCESSFUL waits
   * (briefly) for the platform's own result, which is on its way; others wait for the next task only.
   */
  async function closeWhenQuiet(): Promise<void> {
    for (;;) {
      await condition(allHandlersFinished);
      const task = answeredInTask;
      if (workflowInfo().historyLength !== task) return;
      const id = currentId();
      const awaitResult = tracker.status.state === 'SUCCESSFUL' && id !== undefined && !platformSaid.has(id);
      await condition(() => workflowInfo().historyLength !== task && (!awaitResult || platformSaid.has(id)), awaitResult ? CONFIRMATION_WAIT_MS : 1);
    }
  }

  try {
    for (let step = 0; step < input.steps.length && !final(); step++) {
      d.currentStep = step;
      sendNo = 0;
      const sent = await send(step);
      starting = false;
      if (!sent) break;
      await awaitStep(step);
      if (final()) break;
      const out = stepOutcome as { status: string; reason?: string } | undefined;
      if (!out) break;
      if (out.status === 'SUCCESSFUL') finish('SUCCESSFUL');
      else if (out.status === 'DENIED') finish('DENIED', out.reason);
      else if (out.status === 'ABORTED') finish('ABORTED', out.reason ?? 'replaced by a newer verification');
      else if (step === input.steps.length - 1) finish(out.status === 'ERROR' ? 'ERROR' : 'FAIL', out.reason);
      else
        tracker.moveTo(
          'PENDING',
          `${input.steps[step]!.method} did not succeed (${out.status}${out.reason ? `: ${out.reason}` : ''}); falling back to ${input.steps[step + 1]!.method}`,
        );
    }
    starting = false;
    if (!final()) finish('FAIL', 'no step succeeded');
  } catch (err) {
    starting = false;
    if (isCancellation(err)) finish('CANCELLED', 'the process was cancelled');
    else finish('ERROR', rootMessage(err));
  }
  await closeWhenQuiet();
  return { state: tracker.status.state, ...(reason ? { reason } : {}) };
}

/** The start ran out of time or attempts on failures worth retrying (5xx, 429, network): the platform is unavailable. */
function isUnavailable(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof TimeoutFailure) return true;
    if (e instanceof ApplicationFailure) return !e.nonRetryable;
  }
  return false;
}

/** Started, task scheduled, task started: the history a run's first workflow task sees. */
const FIRST_TASK_HISTORY_LENGTH = 3;
