// Waiting for a step: for the current platform verification to end, within the step's time and the code's
// expiry, resending when the API asks and polling the platform for the methods that want it.
import { allHandlersFinished, condition, proxyLocalActivities } from '@temporalio/workflow';
import type { VerificationActivities } from '../../contract.js';
import { platformLocalActivityOptions } from '../../../shared/workflow/activity-options.js';
import { applyStatus } from './platform-answers.js';
import { readReceipts } from './receipts.js';
import { send } from './send-step.js';
import type { VerificationState } from './verification-state.js';

// A local activity: the read runs inside the workflow task that needs it (see activity-options).
const { getVerificationStatus } = proxyLocalActivities<VerificationActivities>(platformLocalActivityOptions);

const POLLED_METHODS = ['callout', 'seamless'];

/**
 * Waits for the current platform verification to end, for the step's time, polling where the platform wants it. The
 * wait's timer (`v.timer`) is left running when the step ends: the run may complete with it pending, and a run
 * that goes on cancels it.
 */
export async function awaitStep(v: VerificationState, step: number): Promise<void> {
  const { method, timeoutMs } = v.input.steps[step]!;
  const polled = POLLED_METHODS.includes(method);
  const stepEndsAt = Date.now() + timeoutMs;
  const callout = v.details.current?.callout;
  const pollEvery = polled ? Math.max(1, callout?.pollingInterval ?? 2) * 1000 : 0;
  let nextPoll = polled ? v.lastSendAt + Math.max(0, callout?.startPollingAfter ?? 1) * 1000 : Infinity;
  for (;;) {
    if (v.final() || v.stepOutcome) return;
    if (v.resendRequested) {
      const sent = await send(v, step);
      v.resendRequested = false; // only now: the resend update waits for the new verification
      if (!sent) return;
      nextPoll = polled ? Date.now() + pollEvery : Infinity;
      continue;
    }
    const ends = v.waitEnds(stepEndsAt);
    if (Date.now() >= ends) {
      // A lost callback delays nothing: ask the platform before giving up on the step. An SMS receipt that no message
      // carried is read from the store alongside, so the step's audit says whether the SMS was delivered.
      await Promise.all([pollOnce(v), readReceipts(v)]);
      if (!v.final() && !v.stepOutcome) v.stepOutcome = { status: 'FAIL', reason: 'Expired' };
      return;
    }
    v.timer.wakeAt(Math.min(ends, nextPoll));
    // A resend waits for the loop, so it wakes the loop at once; an outcome waits for the handlers' answers.
    await condition(() => ((v.final() || !!v.stepOutcome) && allHandlersFinished()) || v.resendRequested || v.timer.fired);
    if (v.timer.fired && Date.now() >= nextPoll && !v.final() && !v.stepOutcome) {
      await pollOnce(v);
      nextPoll = Date.now() + pollEvery;
    }
  }
}

async function pollOnce(v: VerificationState): Promise<void> {
  const id = v.currentId();
  if (!id) return;
  applyStatus(v, id, await getVerificationStatus({ verificationId: id }));
}
