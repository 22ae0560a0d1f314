// The status every process exposes: where it is, since when, and how it got there.
import { defineQuery } from '@temporalio/workflow';

interface StateChange<S extends string = string> {
  state: S;
  at: string;
  /** Why the process moved, in words a person can act on. */
  reason?: string;
}

export interface ProcessStatus<S extends string = string, D = Record<string, unknown>> {
  kind: string;
  state: S;
  since: string;
  history: StateChange<S>[];
  details: D;
}

/**
 * What a long process hands to its next run when it continues as new: its status and its memory of API operations
 * (outcomes of type O). Each kind adds its own (a campaign's chunks to do, a follower's marks...).
 */
export interface TrackedCarry<S extends string, D, O> {
  state: S;
  since: string;
  history: StateChange<S>[];
  details: D;
  operations: [string, O][];
}

export const processStatusQuery = defineQuery<ProcessStatus>('processStatus');

/**
 * The memo field where a process keeps its last state change, so a list of processes can say when and why each
 * last moved without asking each one (memos, unlike search attributes, go through the payload codec: the reason
 * may name a customer). Absent until the first change of a run (the list then uses the run's start).
 */
export const LAST_CHANGE_MEMO = 'relayflowLastChange';
export interface LastChangeMemo {
  state: string;
  at: string;
  reason?: string;
}
