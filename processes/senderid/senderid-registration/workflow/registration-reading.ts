// Reading a sender ID registration as the platform reports it: the process's first details, the platform's times,
// and its logs merged into the process's view.
import type { SenderIdRegistration as Registration } from '../activity-contract.js';
import type { SenderIdRegistrationDetails, SenderIdRegistrationInput } from '../contract.js';

const KEEP_LOGS = 100;

/** The details a new process starts with (a created registration's policy, or an adopted one's ID). */
export function firstDetails(input: SenderIdRegistrationInput): SenderIdRegistrationDetails {
  const c = input.create;
  return {
    projectId: input.projectId,
    key: input.key,
    ...(c ? { policyId: c.policyId, marketCode: c.marketCode, registrationType: c.registrationType } : {}),
    ...(input.adopt ? { registrationId: input.adopt.registrationId } : {}),
    logs: [],
    attachments: [],
    overdue: false,
    adopted: Boolean(input.adopt),
    callbacks: 0,
    duplicateCallbacks: 0,
    reads: 0,
  };
}

/** `2021-11-03T14:30:03` (UTC without an offset) or ISO with a zone, in ms; NaN when unreadable. */
export const platformMs = (v: string | undefined) => (v ? Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`) : NaN);

/** Adds the platform's log entries not seen yet; only the newest KEEP_LOGS are kept. */
export function mergeLogs(logs: SenderIdRegistrationDetails['logs'], read: NonNullable<Registration['logs']>): void {
  const known = new Set(logs.map((l) => `${l.at}|${l.state}|${l.message}`));
  for (const l of read) {
    if (known.has(`${l.createTime}|${l.registrationState}|${l.message}`)) continue;
    logs.push({ at: l.createTime, state: l.registrationState, message: l.message });
  }
  if (logs.length > KEEP_LOGS) logs.splice(0, logs.length - KEEP_LOGS);
}
