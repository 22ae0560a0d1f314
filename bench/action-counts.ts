// Temporal actions behind one process, over all its runs (continue-as-new), counted from the history the way
// Temporal Cloud bills them: a workflow (run) start, each activity attempt, timers, signals, updates, search
// attribute upserts, markers (local activities, side effects) and child starts. Heartbeats are billed too but
// are not in the history: heartbeatsAtMost is a bound, not a count, and only over the activity types the caller
// says heartbeat (their workflow's activity options): an activity that never calls heartbeat() sends none.
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

/** Activity types that heartbeat, each with the heartbeat timeout (ms) its workflow schedules it with. */
export type HeartbeatingActivities = Readonly<Record<string, number>>;

export interface ActionCounts {
  total: number;
  byKind: Record<string, number>;
  /** At most this many heartbeats reached the server (the heartbeating activities' bound; see heartbeatBound). */
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

export async function countActions(client: Client, workflowId: string, heartbeating: HeartbeatingActivities = {}): Promise<ActionCounts> {
  const counts: ActionCounts[] = [];
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    counts.push(countEvents((await client.workflow.getHandle(workflowId, run.runId).fetchHistory()).events ?? [], heartbeating));
  return addCounts(counts);
}

/** One run's actions from its events after `afterEventId` (0: all of them): what it wrote since an earlier look. */
export async function countRunActions(
  client: Client,
  workflowId: string,
  runId: string,
  afterEventId: number,
  heartbeating: HeartbeatingActivities = {},
): Promise<ActionCounts> {
  const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
  return countEvents(
    events.filter((e) => Number(e.eventId) > afterEventId),
    heartbeating,
  );
}

/** The counts of one run's events (the whole history or a part of it). Pure. */
export function countEvents(history: readonly HistoryEvent[], heartbeating: HeartbeatingActivities = {}): ActionCounts {
  const byKind: Record<string, number> = { 'activity attempts': 0, ...Object.fromEntries(Object.keys(KINDS).map((k) => [k, 0])) };
  let heartbeatsAtMost = 0;
  const attemptOf = new Map<number, number>();
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
      attemptOf.set(Number(e.eventId), started.attempt ?? 1);
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
        const type = typeOf.get(Number(ended.scheduledEventId)) ?? '?';
        const queued = from - (scheduledAt.get(Number(ended.scheduledEventId)) ?? from);
        const timeoutMs = heartbeating[type];
        if (timeoutMs !== undefined)
          heartbeatsAtMost += heartbeatBound({
            timeoutMs,
            lastAttemptSeconds: took,
            earlierAttempts: (attemptOf.get(Number(ended.startedEventId)) ?? 1) - 1,
            beforeLastAttemptSeconds: queued,
            cancelled: !!e.activityTaskCanceledEventAttributes,
          });
        const a = (activities[type] ??= { count: 0, seconds: 0, queuedSeconds: 0 });
        a.count++;
        a.seconds += took;
        a.queuedSeconds += queued;
      }
    }
  }
  const total = Object.values(byKind).reduce((a, b) => a + b, 0);
  return { total, byKind, heartbeatsAtMost, runs: 1, events: history.length, eventTypes, activities };
}

/** The SDK's heartbeat throttle: 0.8 x the heartbeat timeout, at most its 60 s maxHeartbeatThrottleInterval. */
const MAX_THROTTLE_S = 60;

/**
 * The most heartbeats one activity execution can have sent, from what its history says. The SDK sends an attempt's
 * first heartbeat at once, then at most one per throttle interval; a successful or failed ending drops one still
 * throttled, a cancelled ending flushes it. The history holds only the last attempt's start: the earlier attempts
 * (and their back-off) fit between the schedule and that start, so each counts its first heartbeat plus one per
 * throttle interval of that span. Exact for one attempt that heartbeats throughout; above the count otherwise.
 */
export function heartbeatBound(a: {
  timeoutMs: number;
  lastAttemptSeconds: number;
  earlierAttempts: number;
  beforeLastAttemptSeconds: number;
  cancelled: boolean;
}): number {
  const throttleS = Math.min((0.8 * a.timeoutMs) / 1000, MAX_THROTTLE_S);
  const last = 1 + Math.floor(a.lastAttemptSeconds / throttleS) + (a.cancelled ? 1 : 0);
  const earlier = a.earlierAttempts ? a.earlierAttempts + Math.floor(a.beforeLastAttemptSeconds / throttleS) : 0;
  return last + earlier;
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
