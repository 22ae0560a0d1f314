// A sender ID registration process's state and the small steps that change it: applying a registration read from
// the platform (forward only), a stop asked, when to read next, one change to the registration at a time, and the
// carry for continue-as-new. Its parts: attachments.ts, callback-inbox.ts, eta-watch.ts; platform calls are in
// registration-calls.ts.
import { upsertSearchAttributes } from '@temporalio/workflow';
import { REFERENCE } from '../../../../common/search-attributes.js';
import type { CheckRegistrationResult, SenderIdRegistration as Registration } from '../activity-contract.js';
import {
  SENDERID_REGISTRATION_KIND,
  type SenderIdCarry,
  type SenderIdOperationOutcome,
  type SenderIdProcessState,
  type SenderIdRegistrationDetails,
  type SenderIdRegistrationInput,
} from '../contract.js';
import { senderIdRegistration } from '../kind.js';
import type { HandledMemory } from '../../../shared/workflow/handled-memory.js';
import { carryTracked, resumeTracked, type ProcessState } from '../../../shared/workflow/process-state.js';
import { Exclusive } from '../../../shared/workflow/exclusive.js';
import { Attachments } from './attachments.js';
import { CallbackInbox } from './callback-inbox.js';
import { EtaWatch } from './eta-watch.js';
import { firstDetails, mergeLogs, platformMs } from './registration-reading.js';

/** While an upload is WAITING, read at least this often (its callback may be lost too). */
const UPLOAD_READ_MS = 2_000;

export class RegistrationProcess {
  readonly tracker: ProcessState<SenderIdProcessState, SenderIdRegistrationDetails>;
  readonly operations: HandledMemory<SenderIdOperationOutcome>;
  readonly details: SenderIdRegistrationDetails;
  readonly attachments: Attachments;
  readonly callbacks: CallbackInbox;
  private readonly eta: EtaWatch;
  /** When the platform last answered a read: the periodic read counts from it. */
  private lastHeardAt: number;
  /** The newest updateTime applied: an older answer is dropped. */
  private lastUpdateMs = 0;
  private stop: { deleteRegistration: boolean; reason: string } | undefined;
  private readonly edits = new Exclusive();
  /** Something for the main loop to look at (an update, a stop): consumed when it wakes. */
  kick = false;

  constructor(private readonly input: SenderIdRegistrationInput) {
    const { carried } = input;
    ({ tracker: this.tracker, operations: this.operations } = resumeTracked<SenderIdProcessState, SenderIdRegistrationDetails, SenderIdOperationOutcome>(
      SENDERID_REGISTRATION_KIND,
      'VALIDATING',
      firstDetails(input),
      carried,
    ));
    this.details = this.tracker.status.details;
    this.attachments = new Attachments(this.details);
    this.eta = new EtaWatch(this.details, input.overdueGraceMs ?? 0);
    this.callbacks = new CallbackInbox(this.details, carried?.seenEventIds);
    this.lastHeardAt = carried?.lastHeardAt ?? Date.now();
  }

  get state(): SenderIdProcessState {
    return this.tracker.status.state;
  }
  get isFinal(): boolean {
    return senderIdRegistration.states.final.includes(this.state);
  }

  /** The policy pre-check's answer: the attachments to wait for, and whether the registration may be created. */
  policyChecked(policyId: string, { policy, violations }: CheckRegistrationResult): boolean {
    this.attachments.definedBy(policy.attachmentDefinitions);
    if (!violations.length) {
      this.tracker.moveTo('CREATING', `valid for policy ${policyId}`);
      return true;
    }
    this.details.violations = violations;
    this.tracker.moveTo('FAILED', `refused by the policy pre-check: ${violations.map((v) => `${v.field} ${v.rule}`).join(', ')}`);
    return false;
  }

  /** A registration read from the platform (create, read, update answers): forward only. */
  apply(r: Registration, why: string): void {
    const d = this.details;
    const updated = platformMs(r.updateTime);
    if (!Number.isNaN(updated) && updated < this.lastUpdateMs) return; // an older answer than one already applied
    if (!Number.isNaN(updated)) this.lastUpdateMs = updated;
    if (!d.registrationId) upsertSearchAttributes([{ key: REFERENCE, value: `senderid:${r.id}` }]);
    d.registrationId = r.id;
    d.policyId ??= r.policyId;
    d.marketCode ??= r.marketCode;
    d.registrationType ??= r.registrationType;
    if (r.senderId) d.senderId = r.senderId;
    if (r.etaDate && r.etaDate !== d.etaDate) this.eta.moved(r.etaDate);
    mergeLogs(d.logs, r.logs ?? []);
    this.attachments.merge(r.attachments ?? []);
    d.platformState = r.status;
    if (this.isFinal) return; // never back out of a final state
    const missing = this.attachments.missing(r);
    if (missing.length) d.missing = missing;
    else delete d.missing;
    if (r.status === this.state) return;
    if (this.state === 'PENDING_ATTACHMENTS') this.attachments.newRound();
    const log = [...(r.logs ?? [])].reverse().find((l) => l.registrationState === r.status);
    const parts = [
      why,
      log?.message,
      r.etaDate ? `eta ${r.etaDate}` : undefined,
      r.status === 'APPROVED' && r.senderId ? `sender ID ${r.senderId}` : undefined,
    ];
    this.tracker.moveTo(r.status, parts.filter(Boolean).join('; '));
  }

  /** A read answered (or found the registration gone). */
  readDone(): void {
    this.details.reads += 1;
    this.details.lastReadAt = new Date().toISOString();
    this.lastHeardAt = Date.now();
  }

  askStop(deleteRegistration: boolean, reason: string): void {
    this.stop = { deleteRegistration, reason };
    this.kick = true;
  }

  /** Ends the process as a stop asked, unless it has ended already; true when it did. */
  stopIfAsked(): boolean {
    if (!this.stop || this.isFinal) return false;
    this.details.stopReason = this.stop.reason;
    this.tracker.moveTo(this.stop.deleteRegistration ? 'DELETED' : 'STOPPED', this.stop.reason);
    return true;
  }

  /** One change to the registration at a time (an update from the API and the process's own resubmission). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.edits.run(fn);
  }

  checkOverdue(): void {
    if (this.eta.passed()) this.tracker.moveTo(this.state, `overdue: the platform's ETA ${this.details.etaDate} has passed; still waiting`);
  }

  /** How long the main loop waits for a callback before it reads (sooner while an upload is WAITING, or at the ETA). */
  nextDueMs(): number {
    const poll = this.input.pollIntervalMs;
    let due = this.lastHeardAt + (this.attachments.uploadWaiting ? Math.min(UPLOAD_READ_MS, poll) : poll);
    const eta = this.eta.wakeAtMs();
    if (eta !== undefined) due = Math.min(due, eta);
    return Math.max(1, due - Date.now());
  }

  /** What the next run resumes from; undefined while a callback waits for its read or a change is under way. */
  carry(): SenderIdCarry | undefined {
    if (this.callbacks.waiting || this.edits.busy) return undefined;
    return { ...carryTracked(this.tracker, this.operations), seenEventIds: this.callbacks.seenIds(), lastHeardAt: this.lastHeardAt };
  }
}
