// Keeps a workflow's ProcessStatus, answers the status query and mirrors kind/state into search attributes.
import {
  ApplicationFailure,
  getExternalWorkflowHandle,
  isCancellation,
  setHandler,
  TemporalFailure,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { KIND, STATE } from '../../../common/search-attributes.js';
import { childStateSignal, RESOURCE_FIELDS, type ChildStateReport, type ResourceIds } from '../../onboarding/onboarding/contract.js';
import { childOutcome } from '../../onboarding/onboarding/steps.js';
import { LAST_CHANGE_MEMO, processStatusQuery, type LastChangeMemo, type ProcessStatus, type TrackedCarry } from '../../../contracts/process-status.js';
import { failureType } from './failure-text.js';
import { HandledMemory } from './handled-memory.js';
import { emitProcessEvent } from './process-events.js';

export interface ProcessState<S extends string, D> {
  readonly status: ProcessStatus<S, D>;
  /** `memo: false`: no last-change memo, for a change the listing's start or close time already dates and whose reason the list need not show. */
  moveTo(state: S, reason?: string, opts?: { memo?: boolean }): void;
  update(details: Partial<D>): void;
  /** A parent's request (a retry in place) has it count its step as running again: the next outcome is told, whatever it is. */
  parentAsked(): void;
}

/**
 * `listedAs`: what listings show for `initial`, when not itself (the client sets it at start: a verification's STARTING
 * is listed PENDING). `resumed`: a run carrying on from the one before (continue-as-new), whose start was told then.
 */
export function trackProcess<S extends string, D extends object>(
  kind: string,
  initial: S,
  details: D,
  listedAs: S = initial,
  resumed = false,
): ProcessState<S, D> {
  const now = () => new Date().toISOString(); // workflow time: deterministic
  const status: ProcessStatus<S, D> = { kind, state: initial, since: now(), history: [{ state: initial, at: now() }], details };
  // Events tell the states listings show (a verification's STARTING is PENDING there), as the search attribute changes.
  if (!resumed) emitProcessEvent(kind, { state: listedAs, at: status.since });
  setHandler(processStatusQuery, () => status as unknown as ProcessStatus);
  const report = parentReport(kind, initial);
  // The client sets both at start (no upsert then: each is a visibility write); runs started any other
  // way get them here. Later, STATE is written only when it changes: a reason alone is in the status, not in visibility.
  const given = workflowInfo().typedSearchAttributes;
  let listedState = given.get(STATE);
  if (given.get(KIND) !== kind || listedState !== listedAs) {
    upsertSearchAttributes([
      { key: KIND, value: kind },
      { key: STATE, value: listedAs },
    ]);
    listedState = listedAs;
  }
  /** The state listings showed before, when this changes it. */
  const upsertState = (state: S): string | undefined => {
    const listed = state === initial ? listedAs : state;
    if (listed === listedState) return undefined;
    const before = listedState ?? listedAs;
    listedState = listed;
    upsertSearchAttributes([{ key: STATE, value: listed }]);
    return before;
  };
  return {
    status,
    moveTo(state, reason, opts) {
      if (state === status.state && !reason) return;
      status.state = state;
      status.since = now();
      status.history.push(reason ? { state, at: status.since, reason } : { state, at: status.since });
      const previousState = upsertState(state);
      if (opts?.memo !== false) recordLastChange(status);
      if (previousState !== undefined) emitProcessEvent(kind, { state: listedState!, previousState, at: status.since, ...(reason ? { reason } : {}) });
      report?.send({ processId: workflowInfo().workflowId, state, at: status.since, ...(reason ? { reason } : {}), resource: resourceIds(status.details) });
    },
    update(more) {
      Object.assign(status.details, more);
    },
    parentAsked() {
      report?.asked();
    },
  };
}

/** The longest reason the memo keeps (the status query answers it whole). */
const MEMO_REASON_CHARS = 500;

/**
 * The last change in the process's memo (LAST_CHANGE_MEMO), for the audit page's list: an event, not a billed action.
 * A run that continued as new writes its carried change at start.
 */
function recordLastChange(status: ProcessStatus<string, unknown>): void {
  const last = status.history[status.history.length - 1];
  const memo: LastChangeMemo = { state: status.state, at: status.since };
  if (last?.reason && last.at === status.since) memo.reason = last.reason.slice(0, MEMO_REASON_CHARS);
  upsertMemo({ [LAST_CHANGE_MEMO]: memo });
}

/** How many state changes a carry keeps (the oldest are dropped: the history of a years-long watch stays bounded). */
const KEEP_HISTORY = 200;

/**
 * trackProcess for a process that continues as new: resumed from the previous run's carry when there is one (its
 * state, details, history and memory of operations), or started at `initial` with `details`.
 */
export function resumeTracked<S extends string, D extends object, O>(
  kind: string,
  initial: S,
  details: D,
  carried?: TrackedCarry<S, D, O>,
): { tracker: ProcessState<S, D>; operations: HandledMemory<O> } {
  const tracker = trackProcess<S, D>(kind, carried?.state ?? initial, carried?.details ?? details, carried?.state ?? initial, carried !== undefined);
  if (carried) {
    tracker.status.since = carried.since;
    tracker.status.history.splice(0, tracker.status.history.length, ...carried.history);
    recordLastChange(tracker.status);
  }
  return { tracker, operations: new HandledMemory(carried?.operations) };
}

/** The part of a carry every tracked process hands on; `keepHistory` bounds the state changes kept. */
export function carryTracked<S extends string, D, O>(
  tracker: ProcessState<S, D>,
  operations: HandledMemory<O>,
  keepHistory = KEEP_HISTORY,
): TrackedCarry<S, D, O> {
  const s = tracker.status;
  return { state: s.state, since: s.since, history: s.history.slice(-keepHistory), details: s.details, operations: operations.toCarry() };
}

/**
 * A child process (an onboarding's step) tells its parent the state changes its step rules react to: a
 * workflow cannot query another, and templates and senders never complete (they go on watching), so the
 * parent cannot wait for their results. Only a change of outcome is sent (on the way, ok, failed:
 * processes/onboarding/onboarding/steps.ts), each a signal the parent pays for; its end reaches the parent as the
 * child's result or failure (withResourceIds): a report sent in its last task never arrives. Sent to the parent's
 * workflow ID, not run, so it reaches a parent that continued as new. A parent that has ended refuses the signal;
 * the child then stops reporting. Processes without a parent send nothing.
 */
function parentReport(kind: string, initial: string): { send(r: ChildStateReport): void; asked(): void } | undefined {
  const parent = workflowInfo().parent;
  if (!parent) return undefined;
  const handle = getExternalWorkflowHandle(parent.workflowId);
  let parentGone = false;
  // What the parent knows: a step starts RUNNING, and a resumed run's state was told before it continued as new.
  let told = childOutcome(kind, initial);
  return {
    send(r) {
      if (parentGone) return;
      const outcome = childOutcome(kind, r.state);
      if (outcome !== undefined && outcome === told) return;
      told = outcome;
      handle.signal(childStateSignal, r).catch(() => {
        parentGone = true;
      });
    },
    asked() {
      told = 'on-the-way';
    },
  };
}

/**
 * The failure a child process ends with, naming the resource IDs in its details (as a completed child's result does):
 * the report it sent in the same workflow task never reaches the parent, since the server drops a signal whose sender
 * has closed. Only a workflow failure can carry them (another error fails the task, not the run; a cancellation
 * carries nothing). A process without a parent keeps its failure as it is.
 */
export function withResourceIds(err: unknown, details: object): unknown {
  const resource = resourceIds(details);
  if (!workflowInfo().parent || !(err instanceof TemporalFailure) || isCancellation(err) || Object.keys(resource).length === 0) return err;
  return ApplicationFailure.create({ message: err.message, type: failureType(err), nonRetryable: true, details: [resource], cause: err });
}

function resourceIds(details: object): ResourceIds {
  const d = details as Record<string, unknown>;
  const ids: ResourceIds = {};
  for (const f of RESOURCE_FIELDS) if (typeof d[f] === 'string') ids[f] = d[f];
  return ids;
}
