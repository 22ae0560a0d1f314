// A sender ID registration process's signal and API updates. A callback is queued for the main loop to read after;
// an update changes the registration on the platform (one change at a time); an upload may send it back to review;
// a stop ends the process, deleting the registration first when asked. Each operationId is answered once.
import { setHandler } from '@temporalio/workflow';
import {
  attachmentUploadedUpdate,
  senderIdCallbackSignal,
  stopRegistrationUpdate,
  updateRegistrationUpdate,
  type SenderIdOperationOutcome,
} from '../contract.js';
import { operationsOn } from '../../../shared/workflow/actions.js';
import { failureType, rootMessage } from '../../../shared/workflow/failure-text.js';
import { interactive } from './registration-calls.js';
import type { RegistrationProcess } from './registration-process.js';

export function setUpHandlers(p: RegistrationProcess): void {
  const operation = operationsOn(p.operations, 'remember');

  setHandler(senderIdCallbackSignal, (hint) => p.callbacks.heard(hint));

  operation(
    updateRegistrationUpdate,
    (req) =>
      p.exclusive(async (): Promise<SenderIdOperationOutcome> => {
        if (p.isFinal || !p.details.registrationId) return { accepted: false, state: p.state, reason: `a ${p.state} registration cannot be updated` };
        try {
          const { operationId, ...changes } = req;
          p.apply(
            await interactive.updateSenderIdRegistration({ registrationId: p.details.registrationId, changes }),
            `updated through the API (operation ${operationId})`,
          );
          return { accepted: true, state: p.state };
        } catch (err) {
          return refused(p, err);
        }
      }),
    () => {
      if (p.isFinal || !p.details.registrationId) throw new Error(`a ${p.state} registration cannot be updated`);
    },
  );

  operation(attachmentUploadedUpdate, async (req) => {
    if (p.isFinal) return { accepted: false, state: p.state, reason: `the process has ended (${p.state})` };
    const a = req.attachment;
    p.attachments.merge([a]);
    p.tracker.moveTo(p.state, `attachment ${a.attachmentDefinitionId} uploaded (${a.fileName}, ${a.uploadStatus})`);
    p.attachments.uploaded(p.state);
    p.kick = true;
    return { accepted: true, state: p.state };
  });

  operation(stopRegistrationUpdate, async (req) => {
    if (p.isFinal) return { accepted: false, state: p.state, reason: `the process has already ended (${p.state})` };
    const reason = req.reason ? `: ${req.reason}` : '';
    // Not created yet: a stop now would leave the registration the create is making on the platform.
    if (req.deleteRegistration && !p.details.registrationId)
      return { accepted: false, state: p.state, reason: 'the registration is still being created; retry in a moment' };
    if (req.deleteRegistration && p.details.registrationId) {
      try {
        await p.exclusive(() => interactive.deleteSenderIdRegistration({ registrationId: p.details.registrationId! }));
      } catch (err) {
        return refused(p, err);
      }
      p.askStop(true, `deleted through the API${reason}`);
      return { accepted: true, state: 'DELETED' };
    }
    p.askStop(false, `stopped through the API${reason}`);
    return { accepted: true, state: 'STOPPED' };
  });
}

/** An operation the platform refused: its message, error type and the policy's violations when it gave them. */
function refused(p: RegistrationProcess, err: unknown): SenderIdOperationOutcome {
  const errorType = failureType(err);
  const details = findDetails(err);
  return { accepted: false, state: p.state, reason: rootMessage(err), ...(errorType ? { errorType } : {}), ...(details ? { violations: details } : {}) };
}

/** The platform's violations carried in an ApplicationFailure's details ([{httpStatus, code, details: violations}]), if any. */
function findDetails(err: unknown): { field: string; rule: string; description: string }[] | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const details = (e as { details?: unknown[] }).details;
    const first = Array.isArray(details) ? details[0] : undefined;
    const inner = first && typeof first === 'object' ? (first as { details?: unknown }).details : undefined;
    if (Array.isArray(inner))
      return inner.filter(
        (v): v is { field: string; rule: string; description: string } =>
          typeof v === 'object' && v !== null && typeof (v as { field?: unknown }).field === 'string',
      );
  }
  return undefined;
}
