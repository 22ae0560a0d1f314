// Sending a step: the platform start of the current step's method (the first send or a resend), bounded by the
// caller's deadline on the process's first send.
import { ApplicationFailure, proxyLocalActivities, sleep, TimeoutFailure, workflowInfo } from '@temporalio/workflow';
import { platformReference, VERIFICATION_REASONS, type StartVerificationInput, type VerificationActivities } from '../../contract.js';
import { failureType, rootMessage } from '../../../shared/workflow/failure-text.js';
import { START_MARGIN_MS, startActivityOptions } from './activity-options.js';
import { applyStart } from './platform-answers.js';
import type { VerificationState } from './verification-state.js';

// A local activity: the call runs inside the workflow task that needs it (see activity-options). The start has
// its own deadline (activity-options.ts), per call: the first send is bounded by the caller's.
const startVerification = (input: Parameters<VerificationActivities['startVerification']>[0], withinMs?: number) =>
  proxyLocalActivities<VerificationActivities>(startActivityOptions(withinMs)).startVerification(input);
// The look-up alone, bounded like a start: the caller is gone, and the process must end either way.
const { findVerification } = proxyLocalActivities<VerificationActivities>(startActivityOptions());

/** Started, task scheduled, task started: the history a run's first workflow task sees. */
const FIRST_TASK_HISTORY_LENGTH = 3;

/**
 * A denial that names the callback, of a verification relayflow started: relayflow's callback allows each of its own
 * at once, so the platform did not get that answer (no answer within its wait, an instance or the balancer down).
 * Nothing was sent, so a new start is safe: tried again after these waits, then the process ends DENIED.
 */
const CALLBACK_DENIAL = /callback/i;
const CALLBACK_DENIAL_RETRY_WAITS_MS = [1_000, 3_000];
/**
 * How long the platform waits for the callback's answer (ours, as the sandbox: the wire notes give no figure): a retry
 * needs that long before the caller's deadline.
 */
const PLATFORM_CALLBACK_WAIT_MS = 5_000;
/**
 * A method the account does not have (e.g. whatsapp on an older account): the platform refuses the start and sends
 * nothing (docs/verification-wire.md), so the chain moves on to its next step.
 */
const METHOD_NOT_ENABLED = /method not enabled/i;

/**
 * Starts (or resends) the current step on the platform; false when the process ended instead, or when the account
 * does not have the step's method and a next step follows (then `v.methodRefused` says so and the process goes on).
 */
export async function send(v: VerificationState, step: number): Promise<boolean> {
  const { input } = v;
  const { method } = input.steps[step]!;
  v.sendNo += 1;
  const first = v.firstSend(step);
  // The caller gave up at startBy (504): a first send after it would be an SMS nobody waits for.
  const left = v.startTimeLeft(step);
  if (left !== undefined && left < 0) return lateFirstSend(v, step, Math.ceil(-left / 1000));
  const deadline = left === undefined ? undefined : Date.now() + left;
  for (let retry = 0; ; retry++) {
    const token = platformReference(input.platformReferencePrefix, step, v.sendNo);
    try {
      const started = await startVerification(
        {
          identity: input.identity,
          method,
          token,
          ...(input.reference ? { reference: input.reference } : {}),
          // Nothing can have been sent before the first send of the run's first workflow task.
          firstTry: first && retry === 0 && workflowInfo().historyLength <= FIRST_TASK_HISTORY_LENGTH,
          ...(input.language ? { language: input.language } : {}),
          ...methodOptions(input, method),
        },
        deadline === undefined ? undefined : deadline - Date.now() - START_MARGIN_MS,
      );
      applyStart(v, step, token, started);
      return true;
    } catch (err) {
      const wait = CALLBACK_DENIAL_RETRY_WAITS_MS[retry];
      if (
        wait !== undefined &&
        isCallbackDenial(err) &&
        (deadline === undefined || deadline - Date.now() - wait > PLATFORM_CALLBACK_WAIT_MS + START_MARGIN_MS)
      ) {
        v.tracker.moveTo(
          v.state,
          `the platform denied the ${method} start (${rootMessage(err)}): relayflow's answer to its request did not reach it; nothing was sent; starting again in ${wait / 1000} s`,
        );
        await sleep(wait);
        v.sendNo += 1;
        continue;
      }
      if (isMethodNotEnabled(err) && v.sendNo === retry + 1 && step < input.steps.length - 1) {
        v.methodRefused = true;
        v.tracker.moveTo(
          v.state,
          `the platform refused the ${method} start (${rootMessage(err)}): nothing was sent; falling back to ${input.steps[step + 1]!.method}`,
        );
        return false;
      }
      failSend(v, method, err, retry + 1);
      return false;
    }
  }
}

/**
 * The first send's task runs after the caller's deadline: nothing new is sent. In the run's first task nothing can
 * have been sent before; in a later one (a worker died in the first, maybe after the platform accepted its start) the
 * send is looked up by its reference: found, the process goes on with it (an SMS is on its way, its code still
 * verifies); not found, nothing was sent; the platform not answering, the reason says an SMS may have been sent.
 */
async function lateFirstSend(v: VerificationState, step: number, lateS: number): Promise<boolean> {
  const { input } = v;
  const { method } = input.steps[step]!;
  const late = `${VERIFICATION_REASONS.startedLate}: the process first ran ${lateS} s after the caller's deadline`;
  if (workflowInfo().historyLength <= FIRST_TASK_HISTORY_LENGTH) {
    v.finish('ABANDONED', `${late}; nothing was sent`);
    return false;
  }
  const token = platformReference(input.platformReferencePrefix, step, v.sendNo);
  let found;
  try {
    ({ found } = await findVerification({ identity: input.identity, method, token, ...(input.reference ? { reference: input.reference } : {}) }));
  } catch (err) {
    v.finish('ABANDONED', `${late}, after a worker failure; the ${method} may have been sent before it: the platform could not be asked (${rootMessage(err)})`);
    return false;
  }
  if (!found) {
    v.finish('ABANDONED', `${late}, after a worker failure; nothing was sent (no ${method} verification with this send's reference)`);
    return false;
  }
  applyStart(v, step, token, found, `${method} sent before a worker failure; found by its reference ${lateS} s after the caller's deadline`);
  return true;
}

/** The start's options of a method: the code's expiry, alphabet and length, and the SMS template's locale. */
function methodOptions(input: VerificationState['input'], method: string): Pick<StartVerificationInput, 'sms' | 'whatsapp'> {
  const code = { ...(input.code?.type ? { codeType: input.code.type } : {}), ...(input.code?.length ? { codeLength: input.code.length } : {}) };
  if (method === 'sms') return { sms: { expiryMs: input.policy.codeExpiryMs, ...code, ...(input.language ? { locale: input.language } : {}) } };
  if (method === 'whatsapp' && Object.keys(code).length > 0) return { whatsapp: code };
  return {};
}

function isMethodNotEnabled(err: unknown): boolean {
  return failureType(err) === 'PlatformDeniedError' && METHOD_NOT_ENABLED.test(rootMessage(err));
}

function isCallbackDenial(err: unknown): boolean {
  return failureType(err) === 'PlatformDeniedError' && CALLBACK_DENIAL.test(rootMessage(err));
}

function failSend(v: VerificationState, method: string, err: unknown, starts: number): void {
  if (failureType(err) === 'PlatformDeniedError') v.finish('DENIED', starts > 1 ? `${rootMessage(err)} (${starts} starts)` : rootMessage(err));
  else if (isUnavailable(err))
    v.finish('ERROR', `${VERIFICATION_REASONS.platformUnavailable}: the platform did not accept the ${method} start in time; it is not retried`);
  else v.finish('ERROR', rootMessage(err));
}

/** The start ran out of time or attempts on failures worth retrying (5xx, 429, network): the platform is unavailable. */
function isUnavailable(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof TimeoutFailure) return true;
    if (e instanceof ApplicationFailure) return !e.nonRetryable;
  }
  return false;
}
