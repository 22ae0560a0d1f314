// Phone-number verification: one durable process per verification, walking a fallback chain of methods.
// Codes and CLIs arrive by update (the API), results by signal (callbacks) or by polling the platform.
// The state and its decisions are in verification-state.ts, the handlers in verification-handlers.ts, a step's
// send and wait in send-step.ts and await-step.ts.
import { allHandlersFinished, condition, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import type { VerificationInput, VerificationProcessState } from '../../contracts/verification.js';
import { rootMessage } from '../shared/failure-text.js';
import { awaitStep } from './await-step.js';
import { send } from './send-step.js';
import { installHandlers } from './verification-handlers.js';
import { VerificationState } from './verification-state.js';

/** How long a run reported SUCCESSFUL stays open for the platform's own result callback. */
const CONFIRMATION_WAIT_MS = 10_000;

/**
 * A step's wait ends on an outcome (a report, a cancel, a callback) only once the update handlers have answered:
 * before it, cancelling the wait's timer and an update's answer came in an order that depended on the workflow
 * interceptors' awaits. Handlers that wait for the loop (start, resend) end once the process is final or resent.
 */
export const VERIFICATION_AFTER_HANDLERS_PATCH = 'verification-after-handlers';

export async function verification(input: VerificationInput): Promise<{ state: VerificationProcessState; reason?: string }> {
  const v = new VerificationState(input, patched(VERIFICATION_AFTER_HANDLERS_PATCH));
  installHandlers(v);
  try {
    // Each step sends its method and waits for its outcome; one that did not succeed falls back to the next.
    for (let step = 0; step < input.steps.length && !v.final(); step++) {
      v.details.currentStep = step;
      v.sendNo = 0;
      const sent = await send(v, step);
      if (v.methodRefused) {
        // Still starting: the started update answers with the step that was sent.
        v.methodRefused = false;
        continue;
      }
      v.starting = false;
      if (!sent) break;
      await awaitStep(v, step);
      if (!v.nextStep(step)) break;
    }
    v.starting = false;
    if (!v.final()) v.finish('FAIL', 'no step succeeded');
  } catch (err) {
    v.starting = false;
    if (isCancellation(err)) v.finish('CANCELLED', 'the process was cancelled');
    else v.finish('ERROR', rootMessage(err));
  }
  await closeWhenQuiet(v);
  return v.result();
}

/**
 * Lets update handlers answer, then closes the run in a workflow task that answered none. Temporal
 * refuses a task that closes the run while a callback's signal arrived meanwhile (UnhandledCommand), and
 * the updates answered in that task would be lost to their callers. A run reported SUCCESSFUL waits
 * (briefly) for the platform's own result, which is on its way; others wait for the next task only.
 */
async function closeWhenQuiet(v: VerificationState): Promise<void> {
  for (;;) {
    await condition(allHandlersFinished);
    const task = v.answeredInTask;
    if (workflowInfo().historyLength !== task) return;
    const id = v.currentId();
    const awaitResult = v.state === 'SUCCESSFUL' && id !== undefined && !v.platformSaid.has(id);
    await condition(() => workflowInfo().historyLength !== task && (!awaitResult || v.platformSaid.has(id)), awaitResult ? CONFIRMATION_WAIT_MS : 1);
  }
}
