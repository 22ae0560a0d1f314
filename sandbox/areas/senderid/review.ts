// The simulated review: IN_QUEUE -> IN_PROGRESS -> (PENDING_ATTACHMENTS while a mandatory attachment
// is missing, until it is uploaded and the registration updated) -> (PENDING when the reviewer asks
// for an update) -> PENDING_APPROVAL -> APPROVED (sender ID assigned for LONG_NUMBER / SHORT_CODE)
// or REJECTED. Every change appends a log line and sends a callback. Uploads go WAITING -> COMPLETED
// (or FAILED) after uploadMs. Settings come from PUT /_sandbox/senderId/reviewer.
import { policyById } from './catalogue.js';
import type { CallbackHub } from './delivery.js';
import { platformDate, platformTime, type Attachment, type Registration, type RegistrationState } from './model.js';
import type { SenderIdStore } from './store.js';
import type { Timers } from '../../core/timers.js';
import { Violations, isObject } from './validate.js';

export interface ReviewerSettings {
  outcome: 'approve' | 'reject' | 'pending';
  /** Time between two automatic state changes. */
  stepMs: number;
  /** PENDING_APPROVAL before the decision: always, never, or only for policies with manual approval. */
  pendingApproval: 'always' | 'never' | 'policy';
  /** Stop in PENDING_ATTACHMENTS when a mandatory one is missing, always (once), or never. */
  stopForAttachments: 'missing' | 'always' | 'never';
  rejectionReason: string;
  pendingMessage: string;
  etaDays: number;
  uploadMs: number;
  uploadOutcome: 'complete' | 'fail';
}

export const defaultReviewer = (): ReviewerSettings => ({
  outcome: 'approve',
  stepMs: 300,
  pendingApproval: 'always',
  stopForAttachments: 'missing',
  rejectionReason: 'The company details do not match the documents provided.',
  pendingMessage: 'Please confirm the company website and update the registration.',
  etaDays: 14,
  uploadMs: 100,
  uploadOutcome: 'complete',
});

const ENUMS: Partial<Record<keyof ReviewerSettings, readonly string[]>> = {
  outcome: ['approve', 'reject', 'pending'],
  pendingApproval: ['always', 'never', 'policy'],
  stopForAttachments: ['missing', 'always', 'never'],
  uploadOutcome: ['complete', 'fail'],
};
const NUMBERS: (keyof ReviewerSettings)[] = ['stepMs', 'etaDays', 'uploadMs'];
const TEXTS: (keyof ReviewerSettings)[] = ['rejectionReason', 'pendingMessage'];

/** Validates a partial setting; fields left out keep their value. */
export function checkReviewer(input: unknown): Partial<ReviewerSettings> {
  const v = new Violations();
  const body = isObject(input) ? input : {};
  if (!isObject(input)) v.add('body', 'type', 'must be a JSON object');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const k = key as keyof ReviewerSettings;
    if (ENUMS[k]) {
      if (!ENUMS[k].includes(value as string)) v.add(key, 'enum', `must be one of ${ENUMS[k].join(', ')}`);
    } else if (NUMBERS.includes(k)) {
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 3_600_000) v.add(key, 'range', 'must be an integer 0..3600000');
    } else if (TEXTS.includes(k)) {
      if (typeof value !== 'string' || value.length === 0) v.add(key, 'type', 'must be a non-empty string');
    } else {
      v.add(key, 'unknownField', `${key} is not a reviewer setting`);
    }
    out[key] = value;
  }
  v.check('Invalid reviewer setting');
  return out as Partial<ReviewerSettings>;
}

let assigned = 0;

function assignSenderId(r: Registration): string {
  assigned++;
  if (r.registrationType === 'SHORT_CODE') return String(50000 + (assigned % 50000));
  return r.marketCode === 'AU' ? `+6148${String(1000000 + assigned).slice(-7)}` : `+1555${String(1000000 + assigned).slice(-7)}`;
}

export class Reviewer {
  config: ReviewerSettings = defaultReviewer();
  /** Per registration: the one-time stops already made. */
  private readonly stops = new Map<string, { attachments: boolean; pending: boolean }>();

  constructor(
    private readonly store: SenderIdStore,
    private readonly hub: CallbackHub,
    private readonly timers: Timers,
  ) {}

  set(input: unknown): ReviewerSettings {
    this.config = { ...this.config, ...checkReviewer(input) };
    return this.config;
  }

  reset(): void {
    this.config = defaultReviewer();
    this.stops.clear();
  }

  /** A state change: log line, updateTime, callback. */
  move(r: Registration, state: RegistrationState, message: string): void {
    const previousState = r.status;
    r.status = state;
    r.updateTime = platformTime();
    r.logs.push({ createTime: r.updateTime, registrationState: state, message });
    this.hub.emit(r, { eventType: 'REGISTRATION_STATE_CHANGED', previousState, message });
  }

  submitted(r: Registration): void {
    this.later(r, 'IN_QUEUE', () => this.startReview(r));
  }

  /** After a PUT: a registration waiting for the customer goes back to review once it has what it lacked. */
  updated(r: Registration): void {
    if (r.status === 'PENDING') {
      this.later(r, 'PENDING', () => this.startReview(r));
    } else if (r.status === 'PENDING_ATTACHMENTS') {
      const missing = this.missing(r);
      if (missing.length === 0) this.later(r, 'PENDING_ATTACHMENTS', () => this.startReview(r));
      else r.logs.push({ createTime: platformTime(), registrationState: r.status, message: `Still missing: ${missing.join(', ')}` });
    }
  }

  deleted(id: string): void {
    this.timers.cancel(id);
    this.stops.delete(id);
  }

  uploaded(r: Registration, a: Attachment): void {
    this.timers.after(this.config.uploadMs, () => {
      const current = this.store.byId(r.id);
      if (!current || a.uploadStatus !== 'WAITING') return;
      a.uploadStatus = this.config.uploadOutcome === 'fail' ? 'FAILED' : 'COMPLETED';
      a.updateTime = platformTime();
      current.updateTime = a.updateTime;
      this.hub.emit(current, { eventType: 'ATTACHMENT_STATUS_CHANGED', attachmentId: a.attachmentId, uploadStatus: a.uploadStatus });
    }, r.id);
  }

  /** Titles of the mandatory attachments without a COMPLETED upload. */
  missing(r: Registration): string[] {
    const policy = policyById(r.policyId);
    return (policy?.attachmentDefinitions ?? [])
      .filter((d) => d.mandatory && !r.attachments.some((a) => a.attachmentDefinitionId === d.id && a.uploadStatus === 'COMPLETED'))
      .map((d) => d.title);
  }

  /** Runs `fn` after a step, only if the registration still exists and is still in `expected`. */
  private later(r: Registration, expected: RegistrationState, fn: () => void): void {
    this.timers.after(this.config.stepMs, () => {
      if (this.store.byId(r.id) === r && r.status === expected) fn();
    }, r.id);
  }

  private startReview(r: Registration): void {
    if (r.etaDate === null) r.etaDate = platformDate(new Date(Date.now() + this.config.etaDays * 86_400_000));
    this.move(r, 'IN_PROGRESS', 'Registration is being processed.');
    this.later(r, 'IN_PROGRESS', () => this.decide(r));
  }

  private decide(r: Registration): void {
    const stops = this.stops.get(r.id) ?? { attachments: false, pending: false };
    this.stops.set(r.id, stops);
    const c = this.config;
    const missing = this.missing(r);
    if ((c.stopForAttachments === 'missing' && missing.length > 0) || (c.stopForAttachments === 'always' && !stops.attachments)) {
      stops.attachments = true;
      const what = missing.length > 0 ? missing : (policyById(r.policyId)?.attachmentDefinitions.map((d) => d.title) ?? []);
      this.move(r, 'PENDING_ATTACHMENTS', `Mandatory attachments missing: ${what.join(', ') || 'supporting documents'}. Upload them and update the registration.`);
      return;
    }
    if (c.outcome === 'pending' && !stops.pending) {
      stops.pending = true;
      this.move(r, 'PENDING', c.pendingMessage);
      return;
    }
    const manual = c.pendingApproval === 'always' || (c.pendingApproval === 'policy' && policyById(r.policyId)?.manualApproval === true);
    if (manual) {
      this.move(r, 'PENDING_APPROVAL', 'Waiting for the account manager to approve the price.');
      this.later(r, 'PENDING_APPROVAL', () => this.finish(r));
    } else {
      this.finish(r);
    }
  }

  private finish(r: Registration): void {
    if (this.config.outcome === 'reject') {
      this.move(r, 'REJECTED', this.config.rejectionReason);
      return;
    }
    if (policyById(r.policyId)?.senderIdAssigned && r.senderId === null) r.senderId = assignSenderId(r);
    this.move(r, 'APPROVED', `Sender ID ${r.senderId ?? ''} has been provisioned.`.replace('  ', ' '));
  }
}
