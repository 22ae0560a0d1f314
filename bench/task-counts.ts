// What a throughput ratio is made of: workflow tasks and history events behind each verification, counted
// from the histories of a sample of workflows. On one machine the server's work grows with the tasks.
import type { Client } from '@temporalio/client';
// @temporalio/proto is CommonJS: in native ESM only its default export is reliable.
import proto from '@temporalio/proto';

const { EventType } = proto.temporal.api.enums.v1;

export interface TaskCounts {
  workflows: number;
  /** Completed workflow tasks. */
  tasks: number;
  /** Tasks Temporal refused or that timed out (each is redone). */
  redoneTasks: number;
  events: number;
}

export async function countTasks(client: Client, workflowIds: string[]): Promise<TaskCounts> {
  const totals: TaskCounts = { workflows: 0, tasks: 0, redoneTasks: 0, events: 0 };
  for (const id of workflowIds) {
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    totals.workflows += 1;
    totals.events += events.length;
    for (const e of events) {
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) totals.tasks += 1;
      if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED || e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) totals.redoneTasks += 1;
    }
  }
  return totals;
}

/** "2.00 tasks, 0.00 redone, 8.0 events" per unit, from counts over `per` units. */
export function perUnit(c: TaskCounts, per: number): string {
  return `${(c.tasks / per).toFixed(2)} workflow tasks (+${(c.redoneTasks / per).toFixed(2)} redone), ${(c.events / per).toFixed(1)} history events`;
}
