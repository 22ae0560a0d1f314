// Keeps a workflow's ProcessStatus, answers the status query and mirrors kind/state into search attributes.
import { setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { KIND, STATE } from '../../common/search-attributes.js';
import { processStatusQuery, type ProcessStatus } from '../../contracts/process-status.js';

export interface ProcessState<S extends string, D> {
  readonly status: ProcessStatus<S, D>;
  moveTo(state: S, reason?: string): void;
  update(details: Partial<D>): void;
}

export function trackProcess<S extends string, D extends object>(kind: string, initial: S, details: D): ProcessState<S, D> {
  const now = () => new Date().toISOString(); // workflow time: deterministic
  const status: ProcessStatus<S, D> = { kind, state: initial, since: now(), history: [{ state: initial, at: now() }], details };
  setHandler(processStatusQuery, () => status as unknown as ProcessStatus);
  const upsertState = (state: S) => upsertSearchAttributes([{ key: STATE, value: state }]);
  // The client sets both at start (no upsert then: each is a visibility write); runs started any other
  // way get them here.
  const given = workflowInfo().typedSearchAttributes;
  if (given.get(KIND) !== kind || given.get(STATE) !== initial) upsertSearchAttributes([{ key: KIND, value: kind }, { key: STATE, value: initial }]);
  return {
    status,
    moveTo(state, reason) {
      if (state === status.state && !reason) return;
      status.state = state;
      status.since = now();
      status.history.push(reason ? { state, at: status.since, reason } : { state, at: status.since });
      upsertState(state);
    },
    update(more) {
      Object.assign(status.details, more);
    },
  };
}
