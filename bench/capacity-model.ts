// The arithmetic of docs/capacity.md (bench/capacity.ts reads the figures and writes the page): history shape from
// a recorded history's event types, and what a load needs in worker cores, history shards, database writes,
// storage and Temporal Cloud actions. Pure, so test/bench/capacity.test.ts can check it on made-up inputs.

/** Events the server writes in the same transaction as the workflow task completion that issued them (commands). */
const COMMAND_EVENTS = new Set([
  'ACTIVITY_TASK_SCHEDULED',
  'ACTIVITY_TASK_CANCEL_REQUESTED',
  'TIMER_STARTED',
  'TIMER_CANCELED',
  'MARKER_RECORDED',
  'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
  'WORKFLOW_PROPERTIES_MODIFIED',
  'START_CHILD_WORKFLOW_EXECUTION_INITIATED',
  'SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
  'REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
  'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
  'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
  'WORKFLOW_EXECUTION_COMPLETED',
  'WORKFLOW_EXECUTION_FAILED',
  'WORKFLOW_EXECUTION_CONTINUED_AS_NEW',
  // Written with the event that made a workflow task due (a signal, a timer, an activity's end).
  'WORKFLOW_TASK_SCHEDULED',
]);
const VISIBILITY_EVENTS = new Set([
  'WORKFLOW_EXECUTION_STARTED',
  'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES',
  'WORKFLOW_EXECUTION_COMPLETED',
  'WORKFLOW_EXECUTION_FAILED',
  'WORKFLOW_EXECUTION_CONTINUED_AS_NEW',
  'WORKFLOW_EXECUTION_CANCELED',
  'WORKFLOW_EXECUTION_TERMINATED',
  'WORKFLOW_EXECUTION_TIMED_OUT',
]);

export interface HistoryShape {
  events: number;
  /** Estimated history write transactions (state transitions): every event that is not a command of a task completion. */
  writes: number;
  /** Visibility records written: the start, each search attribute upsert, the close. */
  visibilityWrites: number;
  /** Protobuf-encoded size of the events, bytes. */
  bytes: number;
}

/** A history's shape from its events (type without the EVENT_TYPE_ prefix, encoded size). */
export function historyShape(events: { type: string; bytes: number }[]): HistoryShape {
  const s: HistoryShape = { events: 0, writes: 0, visibilityWrites: 0, bytes: 0 };
  for (const e of events) {
    s.events += 1;
    s.bytes += e.bytes;
    if (!COMMAND_EVENTS.has(e.type)) s.writes += 1;
    if (VISIBILITY_EVENTS.has(e.type)) s.visibilityWrites += 1;
  }
  return s;
}

/** Several histories taken as one (a process and the workflows it starts). */
export function sumShapes(shapes: HistoryShape[]): HistoryShape {
  return shapes.reduce(
    (a, s) => ({
      events: a.events + s.events,
      writes: a.writes + s.writes,
      visibilityWrites: a.visibilityWrites + s.visibilityWrites,
      bytes: a.bytes + s.bytes,
    }),
    { events: 0, writes: 0, visibilityWrites: 0, bytes: 0 },
  );
}

export const median = (xs: number[]): number => {
  if (!xs.length) throw new Error('median of nothing');
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export const nextPowerOfTwo = (n: number): number => (n <= 1 ? 1 : 2 ** Math.ceil(Math.log2(n)));

/** What one unit of a kind costs (a process, a template's wake-up, 1,000 campaign messages). */
export interface UnitCost {
  events: number;
  actions: number;
  /** History write transactions and visibility writes per unit. */
  writes: number;
  visibilityWrites: number;
  bytes: number;
  /** Worker CPU ms per unit; undefined when not measured. */
  cpuMs?: number;
}

/** Scales a recorded history's shape to `events` events (the measured count of a whole process). */
export function unitFromShape(shape: HistoryShape, events: number, actions: number, cpuMs?: number): UnitCost {
  const k = events / shape.events;
  return {
    events,
    actions,
    writes: shape.writes * k,
    visibilityWrites: shape.visibilityWrites * k,
    bytes: shape.bytes * k,
    ...(cpuMs === undefined ? {} : { cpuMs }),
  };
}

export interface Assumptions {
  /** Share of a worker core planned busy. */
  coreUtilisation: number;
  coresPerWorker: number;
  /** History write transactions per second one shard is planned to take. */
  writesPerShard: number;
  retentionDays: number;
  /** USD per million actions. */
  pricePerMillion: number;
}

export interface LoadNeeds {
  unitsPerSecond: number;
  cores?: number;
  workers?: number;
  writesPerSecond: number;
  visibilityWritesPerSecond: number;
  shards: number;
  actionsPerDay: number;
  /** Closed histories kept over the retention, GB (10^9 bytes). */
  retainedGB: number;
  costPerDay: number;
}

/** What `unitsPerSecond` units (at peak) and `unitsPerDay` (for volume) of `u` need. */
export function loadNeeds(u: UnitCost, unitsPerSecond: number, unitsPerDay: number, a: Assumptions): LoadNeeds {
  const writesPerSecond = unitsPerSecond * u.writes;
  const cores = u.cpuMs === undefined ? undefined : (unitsPerSecond * u.cpuMs) / 1000 / a.coreUtilisation;
  return {
    unitsPerSecond,
    ...(cores === undefined ? {} : { cores, workers: Math.max(1, Math.ceil(cores / a.coresPerWorker)) }),
    writesPerSecond,
    visibilityWritesPerSecond: unitsPerSecond * u.visibilityWrites,
    shards: nextPowerOfTwo(writesPerSecond / a.writesPerShard),
    actionsPerDay: unitsPerDay * u.actions,
    retainedGB: (unitsPerDay * a.retentionDays * u.bytes) / 1e9,
    costPerDay: (unitsPerDay * u.actions * a.pricePerMillion) / 1e6,
  };
}

/** USD for a million units at a price per million actions. */
export const costPerMillion = (actionsPerUnit: number, pricePerMillion: number): number => actionsPerUnit * pricePerMillion;

/** The limit reached first: the resource whose need is the largest multiple of what there is. */
export function firstLimit(limits: { name: string; need: number; have: number }[]): { name: string; times: number } {
  let best = { name: '', times: -Infinity };
  for (const l of limits) {
    const times = l.need / l.have;
    if (times > best.times) best = { name: l.name, times };
  }
  return best;
}
