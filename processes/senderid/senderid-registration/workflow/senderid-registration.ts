// Sender ID registration (area F): validate against the policy, create the registration (or adopt one a
// callback named), then follow it to APPROVED or REJECTED. Every callback is a hint: the process reads the
// registration from the platform and moves only forward (never out of a final state; duplicates dropped by
// eventId). A periodic read ends it right when a callback is lost. Waits for attachments and answers say
// what is missing; the caller supplies them through the API. Long-lived: continues as new, carrying state.
// The state and its steps are in registration-process.ts, the signal and updates in registration-handlers.ts.
import { allHandlersFinished, condition, continueAsNew, isCancellation, ContinueAsNew, workflowInfo } from '@temporalio/workflow';
import type { SenderIdRegistrationInput, SenderIdRegistrationResult } from '../contract.js';
import { rootMessage } from '../../../shared/workflow/failure-text.js';
import { withResourceIds } from '../../../shared/workflow/process-state.js';
import { WakeTimer } from '../../../shared/workflow/wake-timer.js';
import { createRequest, platform, react, read, reads } from './registration-calls.js';
import { setUpHandlers } from './registration-handlers.js';
import { linkRegistration } from './registration-link.js';
import { RegistrationProcess } from './registration-process.js';

// The steps stay inline here rather than in functions of their own: an await more or less would move the
// process's commands against its handlers' within a workflow task, and recorded histories would not replay.
// The loop reacts to what update handlers changed (kick, stop) only once they have answered, so its commands and an
// update's answer come in one order whatever the workflow interceptors await. The handlers never wait for the loop.
export async function senderIdRegistration(input: SenderIdRegistrationInput): Promise<SenderIdRegistrationResult> {
  const p = new RegistrationProcess(input);
  setUpHandlers(p);
  // One timer for the waits between reads: a callback ends a wait without cancelling it (the next wait reuses it).
  const timer = new WakeTimer();
  const { create: c } = input;
  try {
    // A new process creates the registration (or adopts one); a continued one resumes following it.
    if (!input.carried) {
      if (c) {
        const checked = await reads.checkSenderIdRegistration({ policyId: c.policyId, requestDetails: c.requestDetails });
        if (p.policyChecked(c.policyId, checked)) {
          const created = await platform.createSenderIdRegistration(createRequest(input, checked));
          p.apply(created, created.created === false ? 'found the registration an earlier attempt created' : 'registration created');
        }
      } else {
        await read(p, 'adopted from a platform callback');
        if (p.details.policyId && !p.isFinal)
          p.attachments.requireAsIn((await reads.getSenderIdPolicyRequirements({ policyId: p.details.policyId })).attachmentDefinitions);
        // Its callbacks come straight here from now on, not through the registration's relay (the create links its own).
        if (p.details.registrationId && !p.isFinal) await linkRegistration(input.projectId, p.details.registrationId);
      }
    }
    // Follow it: read after callbacks, react to the API's requests, watch the ETA, read when no callback comes.
    while (!p.isFinal) {
      await condition(allHandlersFinished);
      if (p.callbacks.waiting) await read(p, p.callbacks.take());
      p.attachments.noteComplete(p.state);
      await react(p);
      if (p.isFinal) break;
      p.checkOverdue();
      const info = workflowInfo();
      if (info.continueAsNewSuggested || (input.historyLimit !== undefined && info.historyLength >= input.historyLimit)) {
        await condition(allHandlersFinished);
        const carried = p.carry();
        if (carried) await continueAsNew<typeof senderIdRegistration>({ ...input, carried });
        continue;
      }
      const woke = await timer.wait(() => (p.callbacks.waiting || p.kick) && allHandlersFinished(), p.nextDueMs());
      p.kick = false;
      if (!woke) await read(p, p.attachments.uploadWaiting ? 'read while an upload is WAITING' : 'periodic read (no callback in time)');
    }
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) p.tracker.moveTo('STOPPED', 'the process was cancelled');
    else p.tracker.moveTo('FAILED', rootMessage(err));
    // An onboarding's step learns the registration's ID from the failure (its last report is not delivered).
    throw withResourceIds(err, p.details);
  }
  await condition(allHandlersFinished);
  const { registrationId, senderId } = p.details;
  return { state: p.state, ...(registrationId ? { registrationId } : {}), ...(senderId ? { senderId } : {}) };
}
