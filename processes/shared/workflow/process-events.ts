// Hands a process's state changes to the event outbox: one local activity (one action) per change, scheduled the
// moment the change is made, so the commands a run writes never depend on when an earlier one finished (a replay
// delivers those results at other points than the first run saw). The outbox keeps them in order (each waits for
// the one before it: store/process-events.ts). The run does not end while one is on its way (the interceptor below
// waits for them). Runs started before events existed record none: the patch keeps their histories replaying.
import { CancellationScope, patched, proxyLocalActivities, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { PROCESS_EVENTS_PATCH, type ProcessEventActivities, type ProcessEventChange } from '../../../contracts/process-events.js';
import { TENANT } from '../../../common/search-attributes.js';

// Retried without end: an outbox that is down delays the events, it does not drop them. Past a minute the
// retries wait on durable timers, at most ten minutes apart, so an outage costs a few events an hour.
const { recordProcessEvents } = proxyLocalActivities<ProcessEventActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 minutes' },
  localRetryThreshold: '1 minute',
});

// Module state is the run's own: the SDK evaluates the workflow modules again for each workflow.
let enabled: boolean | undefined;
let next = 0;
const onTheirWay = new Set<Promise<void>>();

/** Records a state change (or, without `previousState`, the process's start) for the event subscribers. */
export function emitProcessEvent(kind: string, change: Omit<ProcessEventChange, 'n'>): void {
  enabled ??= patched(PROCESS_EVENTS_PATCH);
  if (!enabled) return;
  const { workflowId, runId, typedSearchAttributes } = workflowInfo();
  const events = [{ n: next++, ...change }];
  // The customer's subscriptions get it (a local activity's input is not in its marker: no history changes).
  const tenant = typedSearchAttributes.get(TENANT);
  const batch = { processId: workflowId, runId, kind, ...(tenant ? { tenant } : {}), events };
  // Not cancellable: a scope cancelled around a state change must not drop its event.
  const recorded: Promise<void> = CancellationScope.nonCancellable(() => recordProcessEvents(batch)).then(() => {
    onTheirWay.delete(recorded);
  });
  onTheirWay.add(recorded);
}

/** A run ends (completes, fails or continues as new) only once its last events are in the outbox. */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        try {
          return await next(input);
        } finally {
          if (onTheirWay.size > 0) await Promise.all(onTheirWay);
        }
      },
    },
  ],
});
