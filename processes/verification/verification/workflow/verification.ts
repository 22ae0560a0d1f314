// Phone-number verification: one durable process per verification, walking a fallback chain of methods.
// Codes and CLIs arrive by update (the API), results by signal (callbacks) or by polling the platform.
// The state and its decisions are in verification-state.ts, the handlers in verification-handlers.ts, a step's
// send and wait in send-step.ts and await-step.ts.
import { allHandlersFinished, condition, isCancellation, sleep, workflowInfo } from '@temporalio/workflow';
import type { VerificationInput, VerificationProcessState } from '../../contract.js';
import { rootMessage } from '../../../shared/workflow/failure-text.js';
import { awaitStep } from './await-step.js';
import { send } from './send-step.js';
import { readReceipts } from './receipts.js';
import { installHandlers } from './verification-handlers.js';
import { VerificationState } from './verification-state.js';

/** How long a run reported SUCCESSFUL stays open for the platform's own result when no step timer runs any more. */
const CONFIRMATION_WAIT_MS = 10_000;

export async function verification(input: VerificationInput): Promise<{ state: VerificationProcessState; reason?: string }> {
  const v = new VerificationState(input);
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
  // Endings no platform message brought: the SMS receipts no message carried are read once, for the audit.
  if (v.state === 'CANCELLED' || v.state === 'ERROR') await readReceipts(v);
  await closeWhenQuiet(v);
  return v.result();
}

/**
 * Lets update handlers answer, then closes the run in a workflow task that answered none. Temporal refuses a
 * task that closes the run while a callback's signal arrived meanwhile (UnhandledCommand), and the updates
 * answered in that task would be lost to their callers. A run reported SUCCESSFUL waits for the platform's own
 * result, which is on its way, until its step's timer (still running: no new timer); others wait one task
 * (a 1-ms timer). Timers still running when the run completes write nothing more.
 */
async function closeWhenQuiet(v: VerificationState): Promise<void> {
  for (;;) {
    await condition(allHandlersFinished);
    const task = v.answeredInTask;
    if (workflowInfo().historyLength !== task) return;
    const id = v.currentId();
    const nextTask = () => workflowInfo().historyLength !== task;
    if (v.state === 'SUCCESSFUL' && id !== undefined && !v.platformSaid.has(id)) {
      if (!v.timer.pending) v.timer.wakeAt(Date.now() + CONFIRMATION_WAIT_MS);
      await condition(() => nextTask() && (v.platformSaid.has(id) || v.timer.fired));
    } else {
      await Promise.race([condition(nextTask), sleep(1)]);
    }
  }
}
