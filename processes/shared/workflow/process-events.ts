// Hands a process's state changes to the event outbox: one local activity (one action) per batch of changes
// made in one workflow task, batches written one after another so the outbox holds them in order. The run
// does not end while a batch is on its way (the interceptor below waits for it). Runs started before events
// existed record none: the patch keeps their histories replaying.
import { CancellationScope, patched, proxyLocalActivities, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { PROCESS_EVENTS_PATCH, type ProcessEventActivities, type ProcessEventChange } from '../../../contracts/process-events.js';

// Retried without end: an outbox that is down delays the events, it does not drop them. Past a minute the
// retries wait on durable timers, at most ten minutes apart, so an outage costs a few events an hour.
const { recordProcessEvents } = proxyLocalActivities<ProcessEventActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes' },
  localRetryThreshold: '1 minute',
});

// Module state is the run's own: the SDK isolates each workflow's globals.
let enabled: boolean | undefined;
let next = 0;
let waiting: ProcessEventChange[] = [];
let flushing: Promise<void> | undefined;

/** Records a state change (or, without `previousState`, the process's start) for the event subscribers. */
export function emitProcessEvent(kind: string, change: Omit<ProcessEventChange, 'n'>): void {
  enabled ??= patched(PROCESS_EVENTS_PATCH);
  if (!enabled) return;
  waiting.push({ n: next++, ...change });
  flushing ??= flush(kind);
}

async function flush(kind: string): Promise<void> {
  const { workflowId, runId } = workflowInfo();
  while (waiting.length > 0) {
    const events = waiting;
    waiting = [];
    // Not cancellable: a scope cancelled around a state change must not drop its event.
    await CancellationScope.nonCancellable(() => recordProcessEvents({ processId: workflowId, runId, kind, events }));
  }
  flushing = undefined;
}

/** A run ends (completes, fails or continues as new) only once its last events are in the outbox. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        try {
          return await next(input);
        } finally {
          if (flushing) await flushing;
        }
      },
    },
  ],
});
