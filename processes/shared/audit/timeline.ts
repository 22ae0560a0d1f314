// A process's history told as timeline entries, in the process's own words: started, state changes (the
// RelayflowState search attribute), callbacks and caller actions (signals and updates, with who sent them),
// platform calls (activities, with attempts and outcome), child processes, timers and how each run ended.
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { STATE } from '../../../common/search-attributes.js';
import { ACTOR_HEADER, PLATFORM_ACTOR } from '../../../contracts/actor.js';
import { kindOfWorkflowId } from '../../kinds.js';
import { receiptEntries } from '../../verification/contract.js';
import { recordedEntries, voiceEventsSignal } from '../../voice/contract.js';
import { capped, maskDeep, type Decoder, type Masker } from './decode.js';
import { voiceIncoming } from '../../voice/voice-incoming/kind.js';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export interface Run {
  runId: string;
  events: HistoryEvent[];
}

export const ENTRY_KINDS = [
  'started',
  'state',
  'callback',
  'platform call',
  'caller action',
  'child',
  'timer',
  'continued as new',
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed out',
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface TimelineEntry {
  at: string;
  runId: string;
  eventId: number;
  kind: EntryKind;
  summary: string;
  details: Record<string, unknown>;
}

/** How an activity ended, by the attributes its event carries. */
const ACTIVITY_ENDS = [
  ['activityTaskCompletedEventAttributes', 'completed'],
  ['activityTaskFailedEventAttributes', 'failed'],
  ['activityTaskTimedOutEventAttributes', 'timed out'],
  ['activityTaskCanceledEventAttributes', 'cancelled'],
] as const;
/** What happened to a child process after it was asked for. */
const CHILD_CHANGES = [
  ['startChildWorkflowExecutionFailedEventAttributes', 'not started'],
  ['childWorkflowExecutionStartedEventAttributes', 'running'],
  ['childWorkflowExecutionCompletedEventAttributes', 'completed'],
  ['childWorkflowExecutionFailedEventAttributes', 'failed'],
  ['childWorkflowExecutionCanceledEventAttributes', 'cancelled'],
  ['childWorkflowExecutionTimedOutEventAttributes', 'timed out'],
  ['childWorkflowExecutionTerminatedEventAttributes', 'terminated'],
] as const;

/** The first of `table`'s attributes the event carries, with its word. */
function outcomeOf<K extends keyof HistoryEvent>(
  e: HistoryEvent,
  table: readonly (readonly [K, string])[],
): { attrs: NonNullable<HistoryEvent[K]>; outcome: string } | undefined {
  for (const [key, outcome] of table) {
    const attrs = e[key];
    if (attrs) return { attrs: attrs as NonNullable<HistoryEvent[K]>, outcome };
  }
  return undefined;
}

type Timestamp = { seconds?: unknown; nanos?: number | null } | null | undefined;
const ms = (t: Timestamp) => (t?.seconds != null ? Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0);
const iso = (t: Timestamp) => new Date(ms(t)).toISOString();
const durationMs = (d: Timestamp) => ms(d);
/** The marker the TypeScript SDK (core) records for a local activity's outcome. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';
const plain = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** The timeline link of another process (only for IDs the API knows as processes). */
const timelineLink = (processId: string) => (kindOfWorkflowId(processId) ? `/v1/processes/${encodeURIComponent(processId)}/timeline` : undefined);

/** The ID a callback or caller action carries in its first argument, if any: what makes a repeat a duplicate. */
function carriedId(arg: unknown): { name: 'eventId' | 'operationId'; value: string } | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  for (const name of ['eventId', 'operationId'] as const) {
    const v = (arg as Record<string, unknown>)[name];
    if (typeof v === 'string' || typeof v === 'number') return { name, value: String(v) };
  }
  return undefined;
}

export class TimelineBuilder {
  readonly entries: TimelineEntry[] = [];
  /** signal or update name + carried ID, over every run: a second one is a duplicate delivery. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly decoder: Decoder,
    private readonly mask: Masker,
  ) {}

  private shown(value: unknown): unknown {
    return capped(maskDeep(value, this.mask));
  }

  async addRun(run: Run): Promise<void> {
    const activities = new Map<string, { entry: TimelineEntry; scheduledAt: number; attempt: number; lastFailure?: string }>();
    const children = new Map<string, TimelineEntry>();
    const updates = new Map<string, TimelineEntry>();
    const timers = new Map<string, number>();
    const push = (e: HistoryEvent, kind: EntryKind, summary: string, details: Record<string, unknown>) => {
      const entry: TimelineEntry = { at: iso(e.eventTime), runId: run.runId, eventId: Number(e.eventId ?? 0), kind, summary, details: plain(details) };
      this.entries.push(entry);
      return entry;
    };

    for (const e of run.events) {
      const activityEnd = outcomeOf(e, ACTIVITY_ENDS);
      const childChange = outcomeOf(e, CHILD_CHANGES);
      if (e.workflowExecutionStartedEventAttributes) {
        const a = e.workflowExecutionStartedEventAttributes;
        const actor = this.decoder.header(a.header, ACTOR_HEADER);
        const [input] = await this.decoder.values(a.input);
        const from = a.continuedExecutionRunId || undefined;
        const parent = a.parentWorkflowExecution?.workflowId || undefined;
        push(
          e,
          'started',
          `${a.workflowType?.name ?? 'process'} ${from ? `continued from run ${from}` : 'started'}${actor ? ` by ${actor}` : ''}${parent ? ` as a child of ${parent}` : ''}`,
          {
            workflowType: a.workflowType?.name,
            actor,
            continuedFromRunId: from,
            parent,
            parentLink: parent ? timelineLink(parent) : undefined,
            input: this.shown(input),
          },
        );
        const state = this.stateOf(a.searchAttributes);
        if (state && !from) push(e, 'state', `state ${state}`, { state });
        // An incoming call started by its first events answered from the plan: each is an entry of its own.
        if (a.workflowType?.name === voiceIncoming.workflowType) this.pushRecorded(e, push, (input as { events?: unknown } | undefined)?.events);
      } else if (e.upsertWorkflowSearchAttributesEventAttributes) {
        const state = this.stateOf(e.upsertWorkflowSearchAttributesEventAttributes.searchAttributes);
        if (state) push(e, 'state', `state ${state}`, { state });
      } else if (e.workflowExecutionSignaledEventAttributes) {
        const a = e.workflowExecutionSignaledEventAttributes;
        const actor = this.decoder.header(a.header, ACTOR_HEADER);
        const args = await this.decoder.values(a.input);
        const id = carriedId(args[0]);
        const duplicate = this.duplicate(`signal:${a.signalName}`, id);
        // A signal a caller sent (an API key) is their action; anything else came from the platform or another process.
        const kind: EntryKind = actor && actor !== PLATFORM_ACTOR ? 'caller action' : 'callback';
        push(e, kind, `${a.signalName}${id ? ` ${id.name} ${id.value}` : ''}${duplicate ? ' (duplicate)' : ''}${actor ? ` from ${actor}` : ''}`, {
          signal: a.signalName,
          [id?.name ?? 'eventId']: id?.value,
          duplicate,
          actor,
          payload: this.shown(args.length > 1 ? args : args[0]),
        });
        // A call's events relayed in a batch: each is an entry of its own.
        if (a.signalName === voiceEventsSignal.name) this.pushRecorded(e, push, (args[0] as { items?: unknown } | undefined)?.items);
        this.pushReceipts(e, push, args[0], a.signalName ?? 'signal');
      } else if (e.workflowExecutionUpdateAcceptedEventAttributes) {
        const a = e.workflowExecutionUpdateAcceptedEventAttributes;
        const input = a.acceptedRequest?.input;
        const actor = this.decoder.header(input?.header, ACTOR_HEADER);
        const args = await this.decoder.values(input?.args);
        const id = carriedId(args[0]);
        const name = input?.name ?? 'update';
        const duplicate = this.duplicate(`update:${name}`, id);
        const kind: EntryKind = actor === PLATFORM_ACTOR ? 'callback' : 'caller action';
        const updateId = a.acceptedRequest?.meta?.updateId ?? a.protocolInstanceId ?? '';
        const entry = push(e, kind, `${name}${id ? ` ${id.name} ${id.value}` : ''}${duplicate ? ' (duplicate)' : ''}${actor ? ` by ${actor}` : ''}: accepted`, {
          update: name,
          updateId,
          [id?.name ?? 'operationId']: id?.value,
          duplicate,
          actor,
          outcome: 'accepted',
          args: this.shown(args.length > 1 ? args : args[0]),
        });
        updates.set(updateId, entry);
        this.pushReceipts(e, push, args[0], name);
      } else if (e.workflowExecutionUpdateCompletedEventAttributes) {
        const a = e.workflowExecutionUpdateCompletedEventAttributes;
        const entry = updates.get(a.meta?.updateId ?? '');
        if (!entry) continue;
        const failure = await this.decoder.failure(a.outcome?.failure);
        const [result] = await this.decoder.values(a.outcome?.success);
        const outcome = failure ? 'failed' : 'completed';
        entry.summary = entry.summary.replace(/: accepted$/, `: ${outcome}${failure ? ` (${this.mask(failure.message)})` : ''}`);
        Object.assign(
          entry.details,
          plain({
            outcome,
            completedAt: iso(e.eventTime),
            result: failure ? undefined : this.shown(result),
            failure: failure ? this.mask(failure.message) : undefined,
          }),
        );
      } else if (e.activityTaskScheduledEventAttributes) {
        const a = e.activityTaskScheduledEventAttributes;
        const [input] = await this.decoder.values(a.input);
        const activity = a.activityType?.name ?? 'activity';
        const entry = push(e, 'platform call', `${activity}: pending`, { activity, activityId: a.activityId, outcome: 'pending', input: this.shown(input) });
        activities.set(String(e.eventId), { entry, scheduledAt: ms(e.eventTime), attempt: 1 });
      } else if (e.activityTaskStartedEventAttributes) {
        const a = e.activityTaskStartedEventAttributes;
        const call = activities.get(String(a.scheduledEventId));
        if (!call) continue;
        call.attempt = a.attempt ?? 1;
        call.lastFailure = (await this.decoder.failure(a.lastFailure))?.message;
        call.entry.details.attempts = call.attempt;
        call.entry.summary = `${String(call.entry.details.activity)}: running (attempt ${call.attempt})`;
      } else if (activityEnd) {
        const { attrs: a, outcome } = activityEnd;
        const call = activities.get(String(a.scheduledEventId));
        if (!call) continue;
        const failure = await this.decoder.failure(e.activityTaskFailedEventAttributes?.failure ?? e.activityTaskTimedOutEventAttributes?.failure);
        const [result] = await this.decoder.values(e.activityTaskCompletedEventAttributes?.result);
        const took = ms(e.eventTime) - call.scheduledAt;
        const retries = Math.max(0, call.attempt - 1);
        const failureText = failure ? this.mask(failure.message) : undefined;
        call.entry.summary = `${String(call.entry.details.activity)}: ${outcome}${retries ? ` after ${call.attempt} attempts` : ''}${failureText ? ` (${failureText})` : ''}, ${took} ms`;
        Object.assign(
          call.entry.details,
          plain({
            outcome,
            attempts: call.attempt,
            retries,
            durationMs: took,
            completedAt: iso(e.eventTime),
            failure: failureText,
            failureType: failure?.type,
            lastRetriedFailure: call.lastFailure ? this.mask(call.lastFailure) : undefined,
            result: result === undefined ? undefined : this.shown(result),
          }),
        );
      } else if (e.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER) {
        // A local activity: one marker per attempt that ended (a retry after a backoff is a marker of its own).
        const m = e.markerRecordedEventAttributes;
        const [data] = await this.decoder.values(m.details?.data);
        const info = (data ?? {}) as {
          activity_type?: string;
          activity_id?: string;
          attempt?: number;
          complete_time?: Timestamp;
          original_schedule_time?: Timestamp;
          backoff?: Timestamp;
        };
        const failure = await this.decoder.failure(m.failure);
        const [result] = await this.decoder.values(m.details?.result);
        const activity = info.activity_type ?? 'local activity';
        const attempt = info.attempt ?? 1;
        const took = info.complete_time && info.original_schedule_time ? Math.max(0, ms(info.complete_time) - ms(info.original_schedule_time)) : undefined;
        const outcome = failure ? (info.backoff ? 'failed, will retry' : 'failed') : 'completed';
        const failureText = failure ? this.mask(failure.message) : undefined;
        push(
          e,
          'platform call',
          `${activity}: ${outcome}${attempt > 1 ? ` (attempt ${attempt})` : ''}${failureText ? ` (${failureText})` : ''}${took !== undefined ? `, ${took} ms` : ''}`,
          {
            activity,
            activityId: info.activity_id,
            local: true,
            outcome,
            attempts: attempt,
            retries: attempt - 1,
            durationMs: took,
            failure: failureText,
            failureType: failure?.type,
            retryAfterMs: info.backoff ? ms(info.backoff) : undefined,
            result: failure ? undefined : this.shown(result),
          },
        );
        if (!failure) this.pushReceipts(e, push, result, activity);
      } else if (e.startChildWorkflowExecutionInitiatedEventAttributes) {
        const a = e.startChildWorkflowExecutionInitiatedEventAttributes;
        const childId = a.workflowId ?? '';
        const type = a.workflowType?.name ?? 'child';
        const entry = push(e, 'child', `${type} ${childId}: starting`, {
          workflowId: childId,
          workflowType: type,
          link: timelineLink(childId),
          outcome: 'starting',
        });
        children.set(String(e.eventId), entry);
      } else if (childChange) {
        const { attrs: a, outcome } = childChange;
        const entry = children.get(String(a.initiatedEventId));
        if (!entry) continue;
        const failure = await this.decoder.failure(e.childWorkflowExecutionFailedEventAttributes?.failure);
        const runId = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.runId || undefined;
        const failureText = failure
          ? this.mask(failure.message)
          : e.startChildWorkflowExecutionFailedEventAttributes
            ? String(e.startChildWorkflowExecutionFailedEventAttributes.cause ?? '')
            : undefined;
        entry.summary = `${String(entry.details.workflowType)} ${String(entry.details.workflowId)}: ${outcome}${failureText ? ` (${failureText})` : ''}`;
        Object.assign(entry.details, plain({ outcome, childRunId: runId, failure: failureText, [`${outcome.replace(' ', '')}At`]: iso(e.eventTime) }));
      } else if (e.timerStartedEventAttributes) {
        timers.set(e.timerStartedEventAttributes.timerId ?? '', durationMs(e.timerStartedEventAttributes.startToFireTimeout));
      } else if (e.timerFiredEventAttributes) {
        const timerId = e.timerFiredEventAttributes.timerId ?? '';
        const after = timers.get(timerId);
        push(e, 'timer', `timer ${timerId} fired${after !== undefined ? ` after ${after} ms` : ''}`, { timerId, durationMs: after });
      } else if (e.workflowExecutionContinuedAsNewEventAttributes) {
        const next = e.workflowExecutionContinuedAsNewEventAttributes.newExecutionRunId ?? '';
        push(e, 'continued as new', `continued as new in run ${next}`, { newRunId: next });
      } else if (e.workflowExecutionCompletedEventAttributes) {
        const [result] = await this.decoder.values(e.workflowExecutionCompletedEventAttributes.result);
        push(e, 'completed', 'completed', { result: this.shown(result) });
      } else if (e.workflowExecutionFailedEventAttributes) {
        const failure = await this.decoder.failure(e.workflowExecutionFailedEventAttributes.failure);
        const text = this.mask(failure?.message ?? '');
        push(e, 'failed', `failed${text ? `: ${text}` : ''}`, { failure: text, failureType: failure?.type });
      } else if (e.workflowExecutionCanceledEventAttributes) {
        push(e, 'cancelled', 'cancelled', {});
      } else if (e.workflowExecutionTerminatedEventAttributes) {
        const reason = this.mask(e.workflowExecutionTerminatedEventAttributes.reason ?? '');
        push(e, 'terminated', `terminated${reason ? `: ${reason}` : ''}`, {
          reason: reason || undefined,
          identity: e.workflowExecutionTerminatedEventAttributes.identity || undefined,
        });
      } else if (e.workflowExecutionTimedOutEventAttributes) {
        push(e, 'timed out', 'timed out', {});
      }
    }
  }

  /**
   * Reasons from the process's own state history (its status query: workflow time, which is the workflow
   * task's start and a little before the event), matched to state entries by state, in order, within 10 s.
   */
  mergeReasons(history: readonly { state: string; at: string; reason?: string }[]): void {
    let next = 0;
    for (const entry of this.entries) {
      if (entry.kind !== 'state') continue;
      const at = Date.parse(entry.at);
      const i = history.findIndex((h, j) => j >= next && h.state === entry.details.state && Math.abs(Date.parse(h.at) - at) <= 10_000);
      if (i < 0) continue;
      next = i + 1;
      // An entry told with its reason already (an archived run's) keeps it.
      if (entry.details.reason !== undefined) continue;
      const reason = history[i]!.reason;
      if (reason) {
        const text = this.mask(reason);
        entry.details.reason = text;
        entry.summary = `${entry.summary}: ${text}`;
      }
    }
  }

  /** The events of a voice batch (recordedEntries), one callback entry each; a seq already seen is a duplicate relay. */
  private pushRecorded(
    e: HistoryEvent,
    push: (e: HistoryEvent, kind: EntryKind, summary: string, details: Record<string, unknown>) => void,
    items: unknown,
  ): void {
    for (const { summary, details } of recordedEntries(items)) {
      const duplicate = this.duplicate(`voiceEvent:${String(details.callId)}`, { name: 'seq', value: String(details.seq) });
      push(e, 'callback', `${summary}${duplicate ? ' (duplicate)' : ''}`, { ...(this.shown(details) as Record<string, unknown>), duplicate });
    }
  }

  /** SMS receipts kept in the store and carried by a message (or read by the process): one callback entry each. */
  private pushReceipts(
    e: HistoryEvent,
    push: (e: HistoryEvent, kind: EntryKind, summary: string, details: Record<string, unknown>) => void,
    value: unknown,
    carrier: string,
  ): void {
    for (const { summary, eventId, details } of receiptEntries(value)) {
      const duplicate = this.duplicate('smsReceipt', { name: 'eventId', value: eventId });
      push(e, 'callback', `${summary}, with ${carrier}${duplicate ? ' (duplicate)' : ''}`, {
        ...(this.shown(details) as Record<string, unknown>),
        carriedBy: carrier,
        actor: PLATFORM_ACTOR,
        duplicate,
      });
    }
  }

  private duplicate(what: string, id: { name: string; value: string } | undefined): boolean {
    if (!id) return false;
    const key = `${what}\u0000${id.value}`;
    if (this.seen.has(key)) return true;
    this.seen.add(key);
    return false;
  }

  private stateOf(attrs: temporal.api.common.v1.ISearchAttributes | null | undefined): string | undefined {
    const p = attrs?.indexedFields?.[STATE.name];
    if (!p) return undefined;
    try {
      const v = defaultPayloadConverter.fromPayload(p as Payload);
      return Array.isArray(v) ? (v[0] as string | undefined) : typeof v === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  }
}
