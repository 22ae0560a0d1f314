// Sending a step: the platform start of the current step's method (the first send or a resend), bounded by the
// caller's deadline on the process's first send.
import { ApplicationFailure, proxyLocalActivities, TimeoutFailure, workflowInfo } from '@temporalio/workflow';
import { platformReference, VERIFICATION_REASONS, type VerificationActivities } from '../../contracts/verification.js';
import { failureType, rootMessage } from '../shared/failure-text.js';
import { START_MARGIN_MS, startActivityOptions } from './activity-options.js';
import { applyStart } from './platform-answers.js';
import type { VerificationState } from './verification-state.js';

// A local activity: the call runs inside the workflow task that needs it (see activity-options). The start has
// its own deadline (activity-options.ts), per call: the first send is bounded by the caller's.
const startVerification = (input: Parameters<VerificationActivities['startVerification']>[0], withinMs?: number) =>
  proxyLocalActivities<VerificationActivities>(startActivityOptions(withinMs)).startVerification(input);

/** Started, task scheduled, task started: the history a run's first workflow task sees. */
const FIRST_TASK_HISTORY_LENGTH = 3;

/** Starts (or resends) the current step on the platform; false when the process ended instead. */
export async function send(v: VerificationState, step: number): Promise<boolean> {
  const { input } = v;
  const { method } = input.steps[step]!;
  v.sendNo += 1;
  const token = platformReference(input.platformReferencePrefix, step, v.sendNo);
  // The caller gave up at startBy (504): a first send after it would be an SMS nobody waits for.
  const left = v.startTimeLeft(step);
  if (left !== undefined && left < 0) {
    const late = Math.ceil(-left / 1000);
    v.finish('ABANDONED', `${VERIFICATION_REASONS.startedLate}: the process first ran ${late} s after the caller's deadline; nothing was sent`);
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
        firstTry: v.firstSend(step) && workflowInfo().historyLength <= FIRST_TASK_HISTORY_LENGTH,
        ...(input.language ? { language: input.language } : {}),
        ...(method === 'sms' ? { sms: { expiryMs: input.policy.codeExpiryMs } } : {}),
      },
      left === undefined ? undefined : left - START_MARGIN_MS,
    );
    applyStart(v, step, token, started);
    return true;
  } catch (err) {
    if (failureType(err) === 'PlatformDeniedError') v.finish('DENIED', rootMessage(err));
    else if (isUnavailable(err))
      v.finish('ERROR', `${VERIFICATION_REASONS.platformUnavailable}: the platform did not accept the ${method} start in time; it is not retried`);
    else v.finish('ERROR', rootMessage(err));
    return false;
  }
}

/** The start ran out of time or attempts on failures worth retrying (5xx, 429, network): the platform is unavailable. */
function isUnavailable(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof TimeoutFailure) return true;
    if (e instanceof ApplicationFailure) return !e.nonRetryable;
  }
  return false;
}
