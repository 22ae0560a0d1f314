// A change of a live sender through the API (updateSender): sent to the platform once the sender is ACTIVE (RCS:
// LAUNCHED), recorded in the details by its fields only (the values are the caller's, some of them PII), and, where
// the platform reviews it, followed until the decision. A process ends only once no change is in hand or in review.
import { condition } from '@temporalio/workflow';
import { updateSenderUpdate, type OperationOutcome, type SenderChangeNote, type SenderChanges, type UpdateSenderRequest } from '../contract.js';
import { operationsOn } from '../../shared/workflow/actions.js';
import type { Exclusive } from '../../shared/workflow/exclusive.js';
import type { HandledMemory } from '../../shared/workflow/handled-memory.js';
import { refused } from './process.js';

/** What a sender process lends the updateSender handler. */
interface ChangeHost<S extends string, T extends { state: string }> {
  operations: HandledMemory<OperationOutcome>;
  edits: Exclusive;
  state(): S;
  /** ACTIVE, or LAUNCHED (RCS): the state a change is sent in, and the one the platform answers when it applies it at once. */
  live: S;
  tracker: { moveTo(state: S, reason: string): void };
  /** Sends the change (the platform's PATCH). */
  send(changes: SenderChanges): Promise<T>;
  /** Applies the sender the platform answered, with the words for the history. */
  apply(sender: T, reason: string): void;
}

/** A change under review, carried across continue-as-new: its values tell a poll whether the platform applied it. */
export interface PendingChange {
  operationId: string;
  changes: SenderChanges;
}

const KEEP_CHANGES = 20;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export class SenderChangeTracker {
  /** Updates being handled now (not carried: continue-as-new waits for every handler). */
  private inHand = 0;

  constructor(
    private readonly d: { changes?: SenderChangeNote[] },
    /** The change under review, if any. */
    public pending?: PendingChange,
  ) {}

  /** An update is being handled or its change is under review: the process goes on following the sender. */
  busy(): boolean {
    return this.inHand > 0 || this.pending !== undefined;
  }

  /** Runs an update's work, counted as in hand from its first step (before it waits for the edit lock). */
  private async handle(work: () => Promise<OperationOutcome>): Promise<OperationOutcome> {
    this.inHand += 1;
    try {
      return await work();
    } finally {
      this.inHand -= 1;
    }
  }

  /** Records a change the platform took: APPLIED at once, or IN_REVIEW (then pending until the decision). */
  private taken(req: UpdateSenderRequest, reviewed: boolean): SenderChangeNote {
    const note: SenderChangeNote = {
      operationId: req.operationId,
      fields: Object.keys(req.changes).sort(),
      requestedAt: new Date().toISOString(),
      status: reviewed ? 'IN_REVIEW' : 'APPLIED',
    };
    const changes = (this.d.changes ??= []);
    changes.push(note);
    if (changes.length > KEEP_CHANGES) changes.splice(0, changes.length - KEEP_CHANGES);
    if (reviewed) this.pending = { operationId: req.operationId, changes: req.changes };
    return note;
  }

  /** Whether a sender read from the platform holds every field of the pending change. */
  holds(sender: object): boolean {
    const s = sender as Record<string, unknown>;
    return Object.entries(this.pending?.changes ?? {}).every(([k, v]) => same(s[k], v));
  }

  /**
   * Installs the updateSender update: refused (with the reason) unless the sender is live and no change is under
   * review; a run started for the change waits until it has found its sender.
   */
  install<S extends string, T extends { state: string }>(host: ChangeHost<S, T>): void {
    const refusal = (): string | undefined => {
      if (this.pending) return `the change of operation ${this.pending.operationId} is under review: send the next one once it is decided`;
      const now = host.state();
      return now === host.live || now === 'CREATING' ? undefined : `a ${now} sender cannot be changed: a change is sent once the sender is ${host.live}`;
    };
    operationsOn(host.operations)(
      updateSenderUpdate,
      (req) =>
        this.handle(() =>
          host.edits.run(async (): Promise<OperationOutcome> => {
            // A run started for this change creates nothing: it finds the sender first.
            await condition(() => host.state() !== 'CREATING');
            const why = refusal();
            if (why) return { accepted: false, state: host.state(), reason: why };
            try {
              const s = await host.send(req.changes);
              const note = this.taken(req, s.state !== host.live);
              const what = `change of ${note.fields.join(', ')} sent through the API (operation ${req.operationId})`;
              if (note.status === 'APPLIED') host.tracker.moveTo(host.state(), `${what}: applied at once`);
              host.apply(s, `${what}: the platform reviews it`);
              return { accepted: true, state: host.state() };
            } catch (err) {
              return refused(host.state(), err);
            }
          }),
        ),
      () => {
        const why = refusal();
        if (why) throw new Error(why);
      },
    );
  }

  /** Ends the review of the pending change; the words for the process's history. */
  decide(status: 'APPROVED' | 'REJECTED', how: string, comment?: string): string {
    const p = this.pending!;
    this.pending = undefined;
    const note = this.d.changes?.find((c) => c.operationId === p.operationId);
    const fields = Object.keys(p.changes).sort().join(', ');
    if (note) Object.assign(note, { status, decidedAt: new Date().toISOString(), ...(comment ? { reason: comment } : {}) });
    return `change of ${fields} (operation ${p.operationId}) ${status === 'APPROVED' ? 'approved' : 'rejected'}${comment ? `: ${comment}` : ''} (${how}); the sender is live ${status === 'APPROVED' ? 'with' : 'without'} it`;
  }
}
