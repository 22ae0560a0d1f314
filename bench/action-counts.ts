// Temporal actions behind one process, over all its runs (continue-as-new), counted from the history the way
// Temporal Cloud bills them: a workflow (run) start, each activity attempt, timers, signals, updates, search
// attribute upserts, markers (local activities, side effects) and child starts. Heartbeats are billed too but
// are not in the history: the bound given is the SDK's throttling (at most one per 0.8 x heartbeat timeout
// per attempt, plus the first).
import type { Client } from '@temporalio/client';
// @temporalio/proto is CommonJS: in native ESM only its default export is reliable.
import proto from '@temporalio/proto';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

const { EventType: E } = proto.temporal.api.enums.v1;

const KINDS: Record<string, number[]> = {
  'run starts': [E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED],
  timers: [E.EVENT_TYPE_TIMER_STARTED],
  signals: [E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED],
  updates: [E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED, E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_REJECTED],
  'search attribute upserts': [E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES],
  markers: [E.EVENT_TYPE_MARKER_RECORDED],
  'child starts': [E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED],
};

export interface ActionCounts {
  total: number;
  byKind: Record<string, number>;
  heartbeatsAtMost: number;
  runs: number;
  events: number;
  /** Every event of every run, in order, by its short type name (RELAYFLOW_BENCH_EVENTS=1 prints them). */
  eventTypes: string[];
  /** Per activity type: completed executions and their summed last-attempt time (how many ran at once, on average). */
  activities: Record<string, { count: number; seconds: number; queuedSeconds: number }>;
}

const seconds = (t: { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined) =>
  t ? Number(typeof t.seconds === 'number' ? t.seconds : (t.seconds?.toNumber() ?? 0)) + (t.nanos ?? 0) / 1e9 : 0;

export async function countActions(client: Client, workflowId: string, heartbeatTimeoutMs: number): Promise<ActionCounts> {
  const counts: ActionCounts[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    counts.push(countEvents((await client.workflow.getHandle(workflowId, run.runId).fetchHistory()).events ?? [], heartbeatTimeoutMs));
  return addCounts(counts);
}

/** One run's actions from its events after `afterEventId` (0: all of them): what it wrote since an earlier look. */
export async function countRunActions(
  client: Client,
  workflowId: string,
  runId: string,
  afterEventId: number,
  heartbeatTimeoutMs: number,
): Promise<ActionCounts> {
  const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
  return countEvents(
    events.filter((e) => Number(e.eventId) > afterEventId),
    heartbeatTimeoutMs,
  );
}

/** The counts of one run's events (the whole history or a part of it). Pure. */
export function countEvents(history: readonly HistoryEvent[], heartbeatTimeoutMs: number): ActionCounts {
  const byKind: Record<string, number> = { 'activity attempts': 0, ...Object.fromEntries(Object.keys(KINDS).map((k) => [k, 0])) };
  const throttleS = (0.8 * heartbeatTimeoutMs) / 1000;
  let heartbeatsAtMost = 0;
  const activities: ActionCounts['activities'] = {};
  const eventTypes: string[] = [];
  const startedAt = new Map<number, number>();
  const typeOf = new Map<number, string>();
  const scheduledAt = new Map<number, number>();
  for (const e of history) {
    // A failed workflow task says why (a task redone is two to three events more, and a sign of a race).
    const failedTask = e.workflowTaskFailedEventAttributes;
    eventTypes.push(failedTask ? `${shortName(e.eventType ?? 0)}(${failedTaskCause(failedTask)})` : shortName(e.eventType ?? 0));
    for (const [kind, types] of Object.entries(KINDS)) if (types.includes(e.eventType ?? 0)) byKind[kind]! += 1;
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) {
      typeOf.set(Number(e.eventId), scheduled.activityType?.name ?? '?');
      scheduledAt.set(Number(e.eventId), seconds(e.eventTime));
    }
    const started = e.activityTaskStartedEventAttributes;
    if (started) {
      // Only an activity's last attempt is in the history; its attempt number says how many ran.
      byKind['activity attempts']! += started.attempt ?? 1;
      startedAt.set(Number(e.eventId), seconds(e.eventTime));
    }
    const ended =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskCanceledEventAttributes ??
      e.activityTaskTimedOutEventAttributes;
    if (ended?.startedEventId) {
      const from = startedAt.get(Number(ended.startedEventId));
      if (from !== undefined) {
        const took = seconds(e.eventTime) - from;
        heartbeatsAtMost += 1 + Math.floor(took / throttleS);
        const a = (activities[typeOf.get(Number(ended.scheduledEventId)) ?? '?'] ??= { count: 0, seconds: 0, queuedSeconds: 0 });
        a.count++;
        a.seconds += took;
        a.queuedSeconds += from - (scheduledAt.get(Number(ended.scheduledEventId)) ?? from);
      }
    }
  }
  const total = Object.values(byKind).reduce((a, b) => a + b, 0);
  return { total, byKind, heartbeatsAtMost, runs: 1, events: history.length, eventTypes, activities };
}

/** The sum of several runs' (or workflows') counts; event types in the order given. */
export function addCounts(counts: readonly ActionCounts[]): ActionCounts {
  const sum: ActionCounts = { total: 0, byKind: {}, heartbeatsAtMost: 0, runs: 0, events: 0, eventTypes: [], activities: {} };
  for (const c of counts) {
    sum.total += c.total;
    sum.heartbeatsAtMost += c.heartbeatsAtMost;
    sum.runs += c.runs;
    sum.events += c.events;
    sum.eventTypes.push(...c.eventTypes);
    for (const [k, n] of Object.entries(c.byKind)) sum.byKind[k] = (sum.byKind[k] ?? 0) + n;
    for (const [type, a] of Object.entries(c.activities)) {
      const t = (sum.activities[type] ??= { count: 0, seconds: 0, queuedSeconds: 0 });
      t.count += a.count;
      t.seconds += a.seconds;
      t.queuedSeconds += a.queuedSeconds;
    }
  }
  return sum;
}

/** History events by type ("WorkflowTaskCompleted 4, MarkerRecorded 2"), most first: where a process's writes go. */
export function eventsByType(eventTypes: readonly string[]): Record<string, number> {
  const by: Record<string, number> = {};
  for (const t of eventTypes) by[t] = (by[t] ?? 0) + 1;
  return Object.fromEntries(Object.entries(by).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
}

function failedTaskCause(a: proto.temporal.api.history.v1.IWorkflowTaskFailedEventAttributes): string {
  const cause = (proto.temporal.api.enums.v1.WorkflowTaskFailedCause[a.cause ?? 0] ?? String(a.cause)).replace(/^WORKFLOW_TASK_FAILED_CAUSE_/, '');
  const message = a.failure?.message?.split('\n')[0]?.slice(0, 120);
  return message ? `${cause}: ${message}` : cause;
}

/** EVENT_TYPE_WORKFLOW_TASK_COMPLETED -> WorkflowTaskCompleted. */
function shortName(type: number): string {
  const name = E[type] ?? String(type);
  return name
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}
