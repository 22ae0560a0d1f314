// Reading a process's whole Temporal history: every run of its continue-as-new chain, first to latest.
import { isGrpcServiceError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { runEvents } from '../../../processes/shared/audit/run-events.js';
import type { HistoryEvent, Run, TimelineEntry } from '../../../processes/shared/audit/timeline.js';
import { callTemporal } from '../../processes/temporal-errors.js';

/** The most runs one timeline joins: a guard against a chain that never ends. */
const MAX_RUNS = 1_000;
/** gRPC NOT_FOUND: a run Temporal's retention (or an operator) deleted. */
const NOT_FOUND = 5;

/** A run read from Temporal, or (its history deleted while the chain goes on) its entries as archived. */
export type ReadRun = Run & { told?: TimelineEntry[] };
/** A run's archived entries, by run ID (the reader's masking chosen). */
export type ArchivedEntries = (runId: string) => Promise<TimelineEntry[] | undefined>;

const isNotFound = (err: unknown) => isGrpcServiceError(err) && err.code === NOT_FOUND;
/** The run an archived run continued as, from its last entry. */
const nextOfTold = (entries: TimelineEntry[]) => {
  const last = entries.at(-1);
  return last?.kind === 'continued as new' && typeof last.details.newRunId === 'string' ? last.details.newRunId : undefined;
};

/**
 * The runs of the newest chain of `workflowId`, in order. The latest run's started event names the chain's
 * first run; each run's continued-as-new event names the next (a reset's runs are not followed). Undefined when the workflow does not exist.
 * An earlier run whose history retention deleted while the chain went on is told from `archived`, when it has it.
 */
export async function readRuns(client: Client, workflowId: string, archived?: ArchivedEntries): Promise<ReadRun[] | undefined> {
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
      const runs: ReadRun[] = [];
      let runId: string | undefined = firstRunId;
      while (runId && runs.length < MAX_RUNS) {
        let events: HistoryEvent[];
        try {
          events = runId === latestRunId ? latest : await runEvents(client, workflowId, runId);
        } catch (err) {
          const told = isNotFound(err) ? await archived?.(runId) : undefined;
          if (!told) throw err;
          runs.push({ runId, events: [], told });
          runId = nextOfTold(told);
          continue;
        }
        runs.push({ runId, events });
        if (runId === latestRunId) break;
        runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      }
      return runs;
    },
    { what: 'process' },
  );
}
