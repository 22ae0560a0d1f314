// Counts processes as their runs end, by kind and final state: relayflow_processes_ended_total on the
// worker's /metrics. A workflow interceptor module (bundled with the workflows), so no process's code
// changes; the SDK's workflow metric meter records nothing while replaying, so a replayed ending is not
// counted again and no history changes.
import { metricMeter, TemporalFailure, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { KIND, STATE } from '../../../common/search-attributes.js';

export const PROCESSES_ENDED_METRIC = 'relayflow_processes_ended_total';

function countEnd(): void {
  const attributes = workflowInfo().typedSearchAttributes;
  const kind = attributes.get(KIND);
  // Not a process (a resource inbox, a number guard): they have no kind and no state of their own.
  if (!kind) return;
  metricMeter
    .createCounter(PROCESSES_ENDED_METRIC, 'processes', 'Process runs that ended, by kind and final state')
    .add(1, { kind, state: attributes.get(STATE) ?? 'UNKNOWN' });
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        try {
          const result = await next(input);
          countEnd();
          return result;
        } catch (err) {
          // A TemporalFailure ends the run (failed or cancelled). Continue-as-new (not a TemporalFailure) goes on
          // as a new run, and any other error only fails the workflow task, which Temporal retries.
          if (err instanceof TemporalFailure) countEnd();
          throw err;
        }
      },
    },
  ],
});
