// The simulated review: IN_QUEUE -> IN_PROGRESS -> (PENDING_ATTACHMENTS while a mandatory attachment
// is missing, until it is uploaded and the registration updated) -> (PENDING when the reviewer asks
// for an update) -> PENDING_APPROVAL -> APPROVED (sender ID assigned for LONG_NUMBER / SHORT_CODE)
// or REJECTED. Every change appends a log line and sends a callback. Uploads go WAITING -> COMPLETED
// (or FAILED) after uploadMs. Settings come from PUT /_sandbox/senderid/reviewer. Each next step is a due
// job (plain JSON), so a persistent sandbox takes it after a restart too.
import { policyById } from './catalogue.js';
import type { SenderIdCallbacks } from './delivery.js';
import { platformDate, platformTime, type Registration } from './model.js';
import type { Attachment, RegistrationState } from '../../../common/wire/senderid.js';
import type { SenderIdStore } from './store.js';
import type { DueJobs } from '../../core/due-jobs.js';
import { keptTogether, type Kept } from '../../core/kept.js';
import { KeyedTable } from '../../core/table.js';
import { isObject } from '../../core/fields.js';
import { violations } from './validate.js';

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

const defaultReviewer = (): ReviewerSettings => ({
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
function checkReviewer(input: unknown): Partial<ReviewerSettings> {
  const v = violations();
  const body = isObject(input) ? input : {};
  if (!isObject(input)) v.add('body', 'must be a JSON object', 'type');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const k = key as keyof ReviewerSettings;
    if (ENUMS[k]) {
      if (!ENUMS[k].includes(value as string)) v.add(key, `must be one of ${ENUMS[k].join(', ')}`, 'enum');
    } else if (NUMBERS.includes(k)) {
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 3_600_000) v.add(key, 'must be an integer 0..3600000', 'range');
    } else if (TEXTS.includes(k)) {
      if (typeof value !== 'string' || value.length === 0) v.add(key, 'must be a non-empty string', 'type');
    } else {
      v.add(key, `${key} is not a reviewer setting`, 'unknownField');
    }
    out[key] = value;
  }
  v.check('Invalid reviewer setting');
  return out as Partial<ReviewerSettings>;
}

/** Sender IDs handed out so far, in this process (a persistent sandbox restores it, so none is handed out twice). */
let assigned = 0;

function assignSenderId(r: Registration): string {
  assigned++;
  if (r.registrationType === 'SHORT_CODE') return String(50000 + (assigned % 50000));
  return r.marketCode === 'AU' ? `+6148${String(1000000 + assigned).slice(-7)}` : `+1555${String(1000000 + assigned).slice(-7)}`;
}

type Step = 'review' | 'decide' | 'finish';
type Stops = { attachments: boolean; pending: boolean };

export class Reviewer {
  config: ReviewerSettings = defaultReviewer();
  /** Per registration: the one-time stops already made. */
  private readonly stops = new KeyedTable<Stops>();

  constructor(
    private readonly store: SenderIdStore,
    private readonly hub: SenderIdCallbacks,
    private readonly jobs: DueJobs,
  ) {
    // A step runs only if the registration still exists and is still in the state it was scheduled from.
    jobs.handle<{ id: string; expected: RegistrationState; next: Step }>('step', ({ id, expected, next }) => {
      const r = this.store.byId(id);
      if (!r || r.status !== expected) return;
      if (next === 'review') this.startReview(r);
      else if (next === 'decide') this.decide(r);
      else this.finish(r);
    });
    jobs.handle<{ id: string; attachmentId: string }>('upload', ({ id, attachmentId }) => this.uploadDone(id, attachmentId));
  }

  set(input: unknown): ReviewerSettings {
    this.config = { ...this.config, ...checkReviewer(input) };
    return this.config;
  }

  reset(): void {
    this.config = defaultReviewer();
    this.stops.clear();
  }

  /** The review's own memory across a restart (its settings are the run's test knobs and start afresh). */
  get kept(): Kept<Record<string, unknown>> {
    return keptTogether({
      stops: this.stops,
      assigned: {
        save: () => assigned,
        load: (saved) => {
          assigned = Math.max(assigned, Number(saved));
        },
      },
    });
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
    this.later(r, 'IN_QUEUE', 'review');
  }

  /** After a PUT: a registration waiting for the customer goes back to review once it has what it lacked. */
  updated(r: Registration): void {
    if (r.status === 'PENDING') {
      this.later(r, 'PENDING', 'review');
    } else if (r.status === 'PENDING_ATTACHMENTS') {
      const missing = this.missing(r);
      if (missing.length === 0) this.later(r, 'PENDING_ATTACHMENTS', 'review');
      else r.logs.push({ createTime: platformTime(), registrationState: r.status, message: `Still missing: ${missing.join(', ')}` });
    }
  }

  deleted(id: string): void {
    this.jobs.cancel(id);
    this.stops.delete(id);
  }

  uploaded(r: Registration, a: Attachment): void {
    this.jobs.after('upload', this.config.uploadMs, { id: r.id, attachmentId: a.attachmentId }, r.id);
  }

  /** The upload's end. One replaced by a newer upload meanwhile still reports its own end (the platform's order of events). */
  private uploadDone(id: string, attachmentId: string): void {
    const current = this.store.byId(id);
    const a = current?.attachments.find((x) => x.attachmentId === attachmentId);
    if (!current || (a && a.uploadStatus !== 'WAITING')) return;
    const uploadStatus = this.config.uploadOutcome === 'fail' ? 'FAILED' : 'COMPLETED';
    current.updateTime = platformTime();
    if (a) {
      a.uploadStatus = uploadStatus;
      a.updateTime = current.updateTime;
    }
    this.hub.emit(current, { eventType: 'ATTACHMENT_STATUS_CHANGED', attachmentId, uploadStatus });
  }

  /** Titles of the mandatory attachments without a COMPLETED upload. */
  missing(r: Registration): string[] {
    const policy = policyById(r.policyId);
    return (policy?.attachmentDefinitions ?? [])
      .filter((d) => d.mandatory && !r.attachments.some((a) => a.attachmentDefinitionId === d.id && a.uploadStatus === 'COMPLETED'))
      .map((d) => d.title);
  }

  /** Takes step `next` after stepMs, only if the registration still exists and is still in `expected`. */
  private later(r: Registration, expected: RegistrationState, next: Step): void {
    this.jobs.after('step', this.config.stepMs, { id: r.id, expected, next }, r.id);
  }

  private startReview(r: Registration): void {
    if (r.etaDate === null) r.etaDate = platformDate(new Date(Date.now() + this.config.etaDays * 86_400_000));
    this.move(r, 'IN_PROGRESS', 'Registration is being processed.');
    this.later(r, 'IN_PROGRESS', 'decide');
  }

  private decide(r: Registration): void {
    const stops = this.stops.get(r.id) ?? { attachments: false, pending: false };
    this.stops.set(r.id, stops);
    const c = this.config;
    const missing = this.missing(r);
    if ((c.stopForAttachments === 'missing' && missing.length > 0) || (c.stopForAttachments === 'always' && !stops.attachments)) {
      stops.attachments = true;
      const what = missing.length > 0 ? missing : (policyById(r.policyId)?.attachmentDefinitions.map((d) => d.title) ?? []);
      this.move(
        r,
        'PENDING_ATTACHMENTS',
        `Mandatory attachments missing: ${what.join(', ') || 'supporting documents'}. Upload them and update the registration.`,
      );
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
      this.later(r, 'PENDING_APPROVAL', 'finish');
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
