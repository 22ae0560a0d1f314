// A sender ID registration process's calls to the platform (activities): its own at the platform's pace, the API's
// (an update, a delete) with a short deadline so the caller gets an answer in time. Reading the registration, and
// what the main loop does when woken: end as a stop asked, or send the registration back to review.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { CheckRegistrationResult, CreateRegistrationInput, SenderIdActivities } from '../activity-contract.js';
import type { SenderIdRegistrationInput } from '../contract.js';
import { interactiveActivityOptions, platformActivityOptions, platformLocalActivityOptions } from '../../../shared/workflow/activity-options.js';
import { failureType } from '../../../shared/workflow/failure-text.js';
import type { RegistrationProcess } from './registration-process.js';

export const platform = proxyActivities<SenderIdActivities>(platformActivityOptions);
export const interactive = proxyActivities<SenderIdActivities>(interactiveActivityOptions);
/** Reads and the policy pre-check: repeating one is harmless, so a local activity (one marker, no task of its own). */
export const reads = proxyLocalActivities<SenderIdActivities>(platformLocalActivityOptions);

/** The create the policy pre-check cleared, tagged with the caller's key (a retried create finds the first). */
export function createRequest(input: SenderIdRegistrationInput, { policy }: CheckRegistrationResult): CreateRegistrationInput {
  const c = input.create!;
  return {
    registrationKey: input.key,
    marketCode: policy.marketCode,
    registrationType: policy.registrationType,
    request: {
      policyId: c.policyId,
      requestDetails: c.requestDetails,
      ...(c.notificationContacts ? { notificationContacts: c.notificationContacts } : {}),
      ...(c.callbackUrl ? { callbackUrl: c.callbackUrl } : {}),
      ...(c.tags ? { tags: c.tags } : {}),
    },
  };
}

/** Reads the registration and applies it; one gone from the platform ends the process DELETED. */
export async function read(p: RegistrationProcess, why: string): Promise<void> {
  try {
    p.apply(await reads.getSenderIdRegistration({ registrationId: p.details.registrationId! }), why);
  } catch (err) {
    if (failureType(err) !== 'PlatformNotFoundError') throw err;
    if (!p.isFinal) p.tracker.moveTo('DELETED', 'the registration no longer exists on the platform');
  }
  p.readDone();
}

/** Ends the process when a stop was asked; else sends a PENDING_ATTACHMENTS registration back to review once every mandatory upload is COMPLETED. */
export async function react(p: RegistrationProcess): Promise<void> {
  if (p.stopIfAsked() || !p.attachments.takeResubmission(p.state)) return;
  await p.exclusive(async () =>
    p.apply(await platform.updateSenderIdRegistration({ registrationId: p.details.registrationId!, changes: {} }), 'attachments complete: sent back to review'),
  );
}
