// The status every process exposes: where it is, since when, and how it got there.
import { defineQuery } from '@temporalio/workflow';

export interface StateChange<S extends string = string> {
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

export const processStatusQuery = defineQuery<ProcessStatus>('processStatus');
