// What a process tells the event outbox: its state changes, recorded by a local activity and delivered to
// event subscribers (workers/events/). The workflow hands over states and reasons only; the activity adds
// the event ID, masks phone numbers in reasons and fans the events out to the subscriptions.

/** The patch that turned events on: a run that started before it records none (docs/upgrades.md). */
export const PROCESS_EVENTS_PATCH = 'process-events';

export interface ProcessEventChange {
  /** Its place in the run: 0 for the run's start, then each change in order. */
  n: number;
  state: string;
  /** Absent on a process's first event (its start). */
  previousState?: string;
  at: string;
  reason?: string;
}

export interface ProcessEventBatch {
  processId: string;
  runId: string;
  kind: string;
  /** The process's customer (its RelayflowTenant); absent for a process of no customer. */
  tenant?: string;
  events: ProcessEventChange[];
}

export interface ProcessEventActivities {
  recordProcessEvents(batch: ProcessEventBatch): Promise<void>;
}
