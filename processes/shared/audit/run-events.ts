// One run's whole history out of Temporal (all pages), for the timeline route and the archiver alike.
import type { Client } from '@temporalio/client';
import type { HistoryEvent } from './timeline.js';

/** One run's events (Temporal pages them; all pages are read). */
export async function runEvents(client: Client, workflowId: string, runId: string | undefined): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const res = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, ...(runId ? { runId } : {}) },
      maximumPageSize: 1_000,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...(res.history?.events ?? []));
    nextPageToken = res.nextPageToken?.length ? res.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}
