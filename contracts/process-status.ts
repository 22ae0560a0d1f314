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
