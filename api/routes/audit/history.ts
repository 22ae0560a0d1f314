// Reading a process's whole Temporal history: every run of its continue-as-new chain, first to latest.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { runEvents } from '../../../processes/shared/audit/run-events.js';
import type { HistoryEvent, Run } from '../../../processes/shared/audit/timeline.js';
import { callTemporal } from '../../processes/temporal-errors.js';

/** The most runs one timeline joins: a guard against a chain that never ends. */
const MAX_RUNS = 1_000;

/**
 * The runs of the newest chain of `workflowId`, in order. The latest run's started event names the chain's
 * first run; each run's continued-as-new event names the next (a reset's runs are not followed). Undefined when the workflow does not exist.
 */
export async function readRuns(client: Client, workflowId: string): Promise<Run[] | undefined> {
  return callTemporal(
    client,
    workflowId,
    async () => {
      let latestRunId: string;
      try {
        latestRunId = (await client.workflow.getHandle(workflowId).describe()).runId;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      }
      const latest = await runEvents(client, workflowId, latestRunId);
      const started = latest[0]?.workflowExecutionStartedEventAttributes;
      const firstRunId = started?.firstExecutionRunId || latestRunId;
      if (!started?.continuedExecutionRunId || firstRunId === latestRunId) return [{ runId: latestRunId, events: latest }];
      const runs: Run[] = [];
      let runId: string | undefined = firstRunId;
      while (runId && runs.length < MAX_RUNS) {
        const events: HistoryEvent[] = runId === latestRunId ? latest : await runEvents(client, workflowId, runId);
        runs.push({ runId, events });
        if (runId === latestRunId) break;
        runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      }
      return runs;
    },
    { what: 'process' },
  );
}
