// Sender ID registration (area F): validate against the policy, create the registration (or adopt one a
// callback named), then follow it to APPROVED or REJECTED. Every callback is a hint: the process reads the
// registration from the platform and moves only forward (never out of a final state; duplicates dropped by
// eventId). A periodic read ends it right when a callback is lost. Waits for attachments and answers say
// what is missing; the caller supplies them through the API. Long-lived: continues as new, carrying state.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  isCancellation,
  ContinueAsNew,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import { REFERENCE } from '../../common/search-attributes.js';
import type { SenderIdActivities } from '../../contracts/senderid.js';
import {
  attachmentUploadedUpdate,
  FINAL_PROCESS_STATES,
  SENDERID_REGISTRATION_KIND,
  senderIdCallbackSignal,
  stopRegistrationUpdate,
  updateRegistrationUpdate,
  type Attachment,
  type RegistrationState,
  type SenderIdCallbackHint,
  type SenderIdCarry,
  type SenderIdOperationOutcome,
  type SenderIdProcessState,
  type SenderIdRegistrationDetails,
  type SenderIdRegistrationInput,
  type SenderIdRegistrationResult,
} from '../../contracts/senderid-registration.js';
import type { SenderIdRegistration as Registration } from '../../contracts/senderid.js';
import { operationsOn } from '../shared/actions.js';
import { platformActivityOptions } from '../shared/activity-options.js';
import { failureType, rootMessage } from '../shared/failure-text.js';
import { HandledMemory } from '../shared/handled-memory.js';
import { carryTracked, resumeTracked } from '../shared/process-state.js';

const interactiveOptions: ActivityOptions = {
  ...platformActivityOptions,
  scheduleToCloseTimeout: '1 minute',
  retry: { ...platformActivityOptions.retry, maximumAttempts: 5 },
};
const platform = proxyActivities<SenderIdActivities>(platformActivityOptions);
const interactive = proxyActivities<SenderIdActivities>(interactiveOptions);

const KEEP_LOGS = 100;
const KEEP_SEEN = 2_000;
/** While an upload is WAITING, read at least this often (its callback may be lost too). */
const UPLOAD_READ_MS = 2_000;
const WAITING_FOR_CUSTOMER: readonly RegistrationState[] = ['PENDING', 'PENDING_ATTACHMENTS', 'ON_HOLD'];

/** `2021-11-03T14:30:03` (UTC without an offset) or ISO with a zone, in ms; NaN when unreadable. */
const platformMs = (v: string | undefined) => (v ? Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`) : NaN);
/** The end of the ETA day (UTC). */
const etaEndMs = (eta: string | undefined) => (eta ? Date.parse(`${eta}T23:59:59.999Z`) : NaN);

/**
 * The loop reacts to what update handlers changed (kick, stop) only once they have answered: before it, its
 * commands (cancelling the wait's timer, a resubmission) and an update's answer came in an order that depended
 * on the workflow interceptors' awaits. The handlers never wait for the loop, so it cannot wait forever.
 */
export const SENDERID_AFTER_HANDLERS_PATCH = 'senderid-registration-after-handlers';

export async function senderIdRegistration(input: SenderIdRegistrationInput): Promise<SenderIdRegistrationResult> {
  const afterHandlers = patched(SENDERID_AFTER_HANDLERS_PATCH);
  const answered = () => !afterHandlers || allHandlersFinished();
  const carried = input.carried;
  const c = input.create;
  const initialDetails: SenderIdRegistrationDetails = {
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
  const { tracker, operations } = resumeTracked<SenderIdProcessState, SenderIdRegistrationDetails, SenderIdOperationOutcome>(
    SENDERID_REGISTRATION_KIND,
    'VALIDATING',
    initialDetails,
    carried,
  );
  const d = tracker.status.details;
  const seen = HandledMemory.ofIds(carried?.seenEventIds, KEEP_SEEN);
  const operation = operationsOn(operations, 'remember');
  const queued: SenderIdCallbackHint[] = [];
  let lastHeardAt = carried?.lastHeardAt ?? Date.now();
  let lastUpdateMs = 0;
  let stop: { deleteRegistration: boolean; reason: string } | undefined;
  let busy = false;
  let resubmitDue = false;
  /** Sent back to review in this PENDING_ATTACHMENTS round already (the platform moves on a little later). */
  let resubmittedInRound = false;
  /** Something for the main loop to look at (an update, a stop): consumed when it wakes. */
  let kick = false;

  const state = () => tracker.status.state;
  const isFinal = () => FINAL_PROCESS_STATES.includes(state());

  /** A registration read from the platform (create, read, update answers): forward only. */
  function apply(r: Registration, why: string): void {
    const updated = platformMs(r.updateTime);
    if (!Number.isNaN(updated) && updated < lastUpdateMs) return; // an older answer than one already applied
    if (!Number.isNaN(updated)) lastUpdateMs = updated;
    if (!d.registrationId) upsertSearchAttributes([{ key: REFERENCE, value: `senderid:${r.id}` }]);
    d.registrationId = r.id;
    d.policyId ??= r.policyId;
    d.marketCode ??= r.marketCode;
    d.registrationType ??= r.registrationType;
    if (r.senderId) d.senderId = r.senderId;
    if (r.etaDate && r.etaDate !== d.etaDate) {
      d.etaDate = r.etaDate;
      if (d.overdue && Date.now() <= etaEndMs(r.etaDate) + (input.overdueGraceMs ?? 0)) {
        d.overdue = false;
        delete d.overdueSince;
      }
    }
    const known = new Set(d.logs.map((l) => `${l.at}|${l.state}|${l.message}`));
    for (const l of r.logs ?? []) {
      const key = `${l.createTime}|${l.registrationState}|${l.message}`;
      if (known.has(key)) continue;
      d.logs.push({ at: l.createTime, state: l.registrationState, message: l.message });
    }
    if (d.logs.length > KEEP_LOGS) d.logs.splice(0, d.logs.length - KEEP_LOGS);
    mergeAttachments(r.attachments ?? []);
    d.platformState = r.status;
    if (isFinal()) return; // never back out of a final state
    const missing = whatIsMissing(r);
    if (missing.length) d.missing = missing;
    else delete d.missing;
    if (r.status !== state()) {
      if (state() === 'PENDING_ATTACHMENTS') resubmittedInRound = false;
      const log = [...(r.logs ?? [])].reverse().find((l) => l.registrationState === r.status);
      const parts = [
        why,
        log?.message,
        r.etaDate ? `eta ${r.etaDate}` : undefined,
        r.status === 'APPROVED' && r.senderId ? `sender ID ${r.senderId}` : undefined,
      ];
      tracker.moveTo(r.status, parts.filter(Boolean).join('; '));
    }
  }

  function mergeAttachments(list: Attachment[]): void {
    for (const a of list) {
      const view = d.attachments.find((x) => x.attachmentDefinitionId === a.attachmentDefinitionId);
      const fresh = {
        attachmentDefinitionId: a.attachmentDefinitionId,
        attachmentId: a.attachmentId,
        fileName: a.fileName,
        mimeType: a.mimeType,
        uploadStatus: a.uploadStatus,
      };
      if (view) Object.assign(view, fresh);
      else d.attachments.push(fresh);
    }
  }

  function whatIsMissing(r: Registration): string[] {
    if (!WAITING_FOR_CUSTOMER.includes(r.status)) return [];
    const out: string[] = [];
    if (r.status === 'PENDING_ATTACHMENTS') {
      for (const a of d.attachments) {
        if (a.mandatory && a.uploadStatus !== 'COMPLETED')
          out.push(`attachment ${a.attachmentDefinitionId}${a.uploadStatus ? ` (upload ${a.uploadStatus})` : ''}`);
      }
    }
    const log = [...(r.logs ?? [])].reverse().find((l) => l.registrationState === r.status);
    if (log) out.push(log.message);
    return out;
  }

  async function read(why: string, calls = platform): Promise<void> {
    try {
      apply(await calls.getSenderIdRegistration({ registrationId: d.registrationId! }), why);
    } catch (err) {
      if (failureType(err) !== 'PlatformNotFoundError') throw err;
      if (!isFinal()) tracker.moveTo('DELETED', 'the registration no longer exists on the platform');
    }
    d.reads += 1;
    d.lastReadAt = new Date().toISOString();
    lastHeardAt = Date.now();
  }

  /** One change to the registration at a time (an update from the API and the process's own resubmission). */
  async function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    await condition(() => !busy);
    busy = true;
    try {
      return await fn();
    } finally {
      busy = false;
    }
  }

  const refused = (err: unknown): SenderIdOperationOutcome => {
    const errorType = failureType(err);
    const details = findDetails(err);
    return { accepted: false, state: state(), reason: rootMessage(err), ...(errorType ? { errorType } : {}), ...(details ? { violations: details } : {}) };
  };

  setHandler(senderIdCallbackSignal, (hint) => {
    if (!seen.firstTime(hint.eventId)) {
      d.duplicateCallbacks += 1;
      return;
    }
    d.callbacks += 1;
    queued.push(hint);
  });

  operation(
    updateRegistrationUpdate,
    (req) =>
      exclusive(async (): Promise<SenderIdOperationOutcome> => {
        if (isFinal() || !d.registrationId) return { accepted: false, state: state(), reason: `a ${state()} registration cannot be updated` };
        try {
          const { operationId, ...changes } = req;
          apply(
            await interactive.updateSenderIdRegistration({ registrationId: d.registrationId, changes }),
            `updated through the API (operation ${operationId})`,
          );
          return { accepted: true, state: state() };
        } catch (err) {
          return refused(err);
        }
      }),
    () => {
      if (isFinal() || !d.registrationId) throw new Error(`a ${state()} registration cannot be updated`);
    },
  );

  operation(attachmentUploadedUpdate, async (req) => {
    if (isFinal()) return { accepted: false, state: state(), reason: `the process has ended (${state()})` };
    mergeAttachments([req.attachment]);
    tracker.moveTo(state(), `attachment ${req.attachment.attachmentDefinitionId} uploaded (${req.attachment.fileName}, ${req.attachment.uploadStatus})`);
    resubmittedInRound = false;
    if (state() === 'PENDING_ATTACHMENTS') resubmitDue = true;
    kick = true;
    return { accepted: true, state: state() };
  });

  operation(stopRegistrationUpdate, async (req) => {
    if (isFinal()) return { accepted: false, state: state(), reason: `the process has already ended (${state()})` };
    const reason = req.reason ? `: ${req.reason}` : '';
    // Not created yet: a stop now would leave the registration the create is making on the platform.
    if (req.deleteRegistration && !d.registrationId)
      return { accepted: false, state: state(), reason: 'the registration is still being created; retry in a moment' };
    if (req.deleteRegistration && d.registrationId) {
      try {
        await exclusive(() => interactive.deleteSenderIdRegistration({ registrationId: d.registrationId! }));
      } catch (err) {
        return refused(err);
      }
      stop = { deleteRegistration: true, reason: `deleted through the API${reason}` };
      kick = true;
      return { accepted: true, state: 'DELETED' };
    }
    stop = { deleteRegistration: false, reason: `stopped through the API${reason}` };
    kick = true;
    return { accepted: true, state: 'STOPPED' };
  });

  /** Sends a PENDING_ATTACHMENTS registration back to review once every mandatory upload is COMPLETED. */
  async function react(): Promise<void> {
    if (stop && !isFinal()) {
      d.stopReason = stop.reason;
      tracker.moveTo(stop.deleteRegistration ? 'DELETED' : 'STOPPED', stop.reason);
      return;
    }
    if (!resubmitDue || resubmittedInRound || state() !== 'PENDING_ATTACHMENTS' || !d.registrationId) return;
    if (d.attachments.some((a) => a.uploadStatus === 'WAITING')) return;
    if (d.attachments.some((a) => a.mandatory && a.uploadStatus !== 'COMPLETED')) {
      resubmitDue = false;
      return;
    }
    resubmitDue = false;
    resubmittedInRound = true;
    await exclusive(async () =>
      apply(await platform.updateSenderIdRegistration({ registrationId: d.registrationId!, changes: {} }), 'attachments complete: sent back to review'),
    );
  }

  function checkOverdue(): void {
    if (d.overdue || !d.etaDate) return;
    const due = etaEndMs(d.etaDate) + (input.overdueGraceMs ?? 0);
    if (Number.isNaN(due) || Date.now() <= due) return;
    d.overdue = true;
    d.overdueSince = new Date().toISOString();
    tracker.moveTo(state(), `overdue: the platform's ETA ${d.etaDate} has passed; still waiting`);
  }

  const nextDueMs = () => {
    const waitingUpload = d.attachments.some((a) => a.uploadStatus === 'WAITING');
    let due = lastHeardAt + (waitingUpload ? Math.min(UPLOAD_READ_MS, input.pollIntervalMs) : input.pollIntervalMs);
    if (!d.overdue && d.etaDate) {
      const eta = etaEndMs(d.etaDate) + (input.overdueGraceMs ?? 0);
      if (!Number.isNaN(eta)) due = Math.min(due, eta + 1);
    }
    return Math.max(1, due - Date.now());
  };

  try {
    if (!carried) {
      if (c) {
        const { policy, violations } = await platform.checkSenderIdRegistration({ policyId: c.policyId, requestDetails: c.requestDetails });
        d.attachments = policy.attachmentDefinitions.map((a) => ({ attachmentDefinitionId: a.id, mandatory: a.mandatory }));
        if (violations.length) {
          d.violations = violations;
          tracker.moveTo('FAILED', `refused by the policy pre-check: ${violations.map((v) => `${v.field} ${v.rule}`).join(', ')}`);
        } else {
          tracker.moveTo('CREATING', `valid for policy ${c.policyId}`);
          const created = await platform.createSenderIdRegistration({
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
          });
          apply(created, created.created === false ? 'found the registration an earlier attempt created' : 'registration created');
        }
      } else {
        await read('adopted from a platform callback');
        if (d.policyId && !isFinal()) {
          const policy = await platform.getSenderIdPolicyRequirements({ policyId: d.policyId });
          for (const def of policy.attachmentDefinitions) {
            const view = d.attachments.find((a) => a.attachmentDefinitionId === def.id);
            if (view) view.mandatory = def.mandatory;
            else d.attachments.push({ attachmentDefinitionId: def.id, mandatory: def.mandatory });
          }
        }
      }
    }
    while (!isFinal()) {
      if (afterHandlers) await condition(allHandlersFinished);
      if (queued.length) {
        const batch = queued.splice(0);
        await read(`read after callback ${batch.map((h) => `${h.eventType}${h.registrationState ? ` ${h.registrationState}` : ''}`).join(', ')}`);
      }
      if (state() === 'PENDING_ATTACHMENTS' && d.attachments.some((a) => a.mandatory && a.uploadStatus === 'COMPLETED'))
        resubmitDue ||= !d.attachments.some((a) => a.mandatory && a.uploadStatus !== 'COMPLETED');
      await react();
      if (isFinal()) break;
      checkOverdue();
      const info = workflowInfo();
      if (info.continueAsNewSuggested || (input.historyLimit !== undefined && info.historyLength >= input.historyLimit)) {
        await condition(allHandlersFinished);
        if (!queued.length && !busy) {
          const carry: SenderIdCarry = { ...carryTracked(tracker, operations), seenEventIds: seen.ids(), lastHeardAt };
          await continueAsNew<typeof senderIdRegistration>({ ...input, carried: carry });
        }
        continue;
      }
      const wait = nextDueMs();
      const woke = await condition(() => (queued.length > 0 || kick) && answered(), wait);
      kick = false;
      if (!woke)
        await read(d.attachments.some((a) => a.uploadStatus === 'WAITING') ? 'read while an upload is WAITING' : 'periodic read (no callback in time)');
    }
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    if (isCancellation(err)) tracker.moveTo('STOPPED', 'the process was cancelled');
    else tracker.moveTo('FAILED', rootMessage(err));
    throw err;
  }
  await condition(allHandlersFinished);
  return { state: state(), ...(d.registrationId ? { registrationId: d.registrationId } : {}), ...(d.senderId ? { senderId: d.senderId } : {}) };
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
