// Archives closed processes beside a worker's pollers, so their audit outlives Temporal's retention: reads the
// runs that closed since its cursor (with an overlap, for runs visibility shows late) from Temporal's visibility,
// reads each one's history and tells it as the timeline route does, and writes it once to the store's archive.
// It reads what Temporal already keeps: the processes' own histories pay nothing. Several workers may run it:
// the store writes each run once. Downtime is caught up on the next pass, while retention has not deleted it.
import { isGrpcCancelledError, isGrpcDeadlineError, isGrpcServiceError, type Client } from '@temporalio/client';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { AuditSettings } from '../../common/config/audit.js';
import type { Logger } from '../../common/logger.js';
import { KIND, STATE, TENANT } from '../../common/search-attributes.js';
import { LAST_CHANGE_MEMO, processStatusQuery, type LastChangeMemo } from '../../contracts/process-status.js';
import { Decoder, maskPhones, noMask } from '../../processes/shared/audit/decode.js';
import { runEvents } from '../../processes/shared/audit/run-events.js';
import { TimelineBuilder } from '../../processes/shared/audit/timeline.js';
import type { ArchivedRun, AuditArchive } from '../../store/audit-archive.js';

type ListedExecution = NonNullable<temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse['executions']>[number];

/** A visibility-query string literal (as api/processes/find.ts quotes). */
const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const DAY = 86_400_000;
const HOUR = 3_600_000;
/**
 * How far before the cursor a pass looks again. Visibility records a close a little after it, and not always in the
 * order runs closed: every pass looks back a little; one a minute looks back far, for a record written late. (Each
 * look back re-lists every run closed in it: at 16 closes/s, 5 minutes is 48 pages and as many store queries.)
 */
const OVERLAP_MS = 10_000;
const FAR_OVERLAP_MS = 6 * 60_000;
const FAR_EVERY_MS = 60_000;
/** Runs read per visibility page, and archived at once. */
const PAGE_SIZE = 100;
/** Runs archived at once (bench/archiver.ts reads Temporal at this concurrency too). */
export const ARCHIVE_CONCURRENCY = 4;
/**
 * How long the run may take to answer its status query (for its state changes' reasons): longer than the timeline
 * route's 2 s, since no one waits on a page here and a worker busy closing processes answers late.
 */
const STATUS_WAIT_MS = 10_000;
/** Passes a run may leave for later because its status was not answered in time; then it is archived without it. */
const STATUS_TRIES = 3;
const EXECUTION_STATUS = ['UNSPECIFIED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT'];

const tsMs = (t?: { seconds?: unknown; nanos?: number | null } | null) =>
  t?.seconds != null ? Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : undefined;

/** gRPC's FAILED_PRECONDITION: what the server answers a query when no worker has polled the task queue lately. */
const FAILED_PRECONDITION = 9;

/**
 * No worker answered the query: none within the wait (a busy one), or none polling (one stopped or restarting: the
 * server then answers FAILED_PRECONDITION, or at times cancels the call).
 */
function notAnswered(err: unknown): boolean {
  if (isGrpcDeadlineError(err) || isGrpcCancelledError(err)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return isGrpcServiceError(cause) && cause.code === FAILED_PRECONDITION;
}

function keyword(attrs: temporal.api.common.v1.ISearchAttributes | null | undefined, name: string): string {
  const p = attrs?.indexedFields?.[name];
  if (!p) return '';
  try {
    const v = defaultPayloadConverter.fromPayload(p as Payload);
    return Array.isArray(v) ? String(v[0] ?? '') : typeof v === 'string' ? v : '';
  } catch {
    return '';
  }
}

export class AuditArchiver {
  private stopped = false;
  private wake: (() => void) | undefined;
  private readonly decoder: Decoder;
  private readonly cursorName: string;
  /** When the last pass that looked back far began (0: none has yet). */
  private farAt = 0;
  /** Runs whose status query went unanswered, with how many times (this process's count: a restart starts again). */
  private readonly unanswered = new Map<string, number>();

  constructor(
    private readonly client: Client,
    private readonly archive: AuditArchive,
    private readonly codec: PayloadCodec,
    private readonly settings: AuditSettings,
    private readonly log: Logger,
    /** Only this task queue's processes: the ones this deployment runs, and whose codec keys it has. */
    private readonly taskQueue: string,
    /** How long a run may take to answer its status query (tests with no worker wait out less). */
    private readonly statusWaitMs = STATUS_WAIT_MS,
  ) {
    this.decoder = new Decoder(codec);
    this.cursorName = `temporal:${client.options.namespace}:${taskQueue}`;
  }

  async run(): Promise<void> {
    let sweptAt = 0;
    while (!this.stopped) {
      await this.pass().catch((err: unknown) => this.log.warn({ err }, 'audit: archiving closed processes failed; trying again'));
      if (Date.now() - sweptAt > HOUR) {
        sweptAt = Date.now();
        await this.archive
          .sweep(new Date(Date.now() - this.settings.keepDays * DAY))
          .then((n) => n > 0 && this.log.info({ rows: n }, 'audit: archived processes past their keep time deleted'))
          .catch((err: unknown) => this.log.warn({ err }, 'audit: sweeping the archive failed'));
      }
      // Stopped during the pass: no wait (stop() woke a pause that had not begun).
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.settings.intervalMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  /** One pass over the runs closed since the cursor: how many it archived. The cursor moves only once all are written. */
  async pass(): Promise<number> {
    const startedAt = Date.now();
    const far = startedAt - this.farAt >= FAR_EVERY_MS;
    const cursor = await this.archive.cursor(this.cursorName);
    const clauses = [`${KIND.name} IS NOT NULL`, `ExecutionStatus != 'Running'`, `TaskQueue = ${quote(this.taskQueue)}`];
    if (cursor) clauses.push(`CloseTime >= '${new Date(cursor.getTime() - (far ? FAR_OVERLAP_MS : OVERLAP_MS)).toISOString()}'`);
    let newest = cursor?.getTime() ?? 0;
    let archived = 0;
    let token: Uint8Array | undefined;
    do {
      const res = await this.client.workflowService.listWorkflowExecutions({
        namespace: this.client.options.namespace,
        query: clauses.join(' AND '),
        pageSize: PAGE_SIZE,
        ...(token ? { nextPageToken: token } : {}),
      });
      const executions = res.executions ?? [];
      const have = await this.archive.has(executions.map((e) => e.execution?.runId ?? ''));
      const todo = executions.filter((e) => e.execution?.runId && !have.has(e.execution.runId));
      for (let i = 0; i < todo.length && !this.stopped; i += ARCHIVE_CONCURRENCY) {
        const outcomes = await Promise.all(todo.slice(i, i + ARCHIVE_CONCURRENCY).map((e) => this.archiveRun(e)));
        archived += outcomes.filter((o) => o === 'archived').length;
      }
      for (const e of executions) newest = Math.max(newest, tsMs(e.closeTime) ?? 0);
      token = res.nextPageToken?.length ? res.nextPageToken : undefined;
    } while (token && !this.stopped);
    if (!this.stopped && newest > 0) await this.archive.advance(this.cursorName, new Date(newest));
    // A far look that failed or was stopped is made again on the next pass.
    if (far && !this.stopped) this.farAt = startedAt;
    if (archived > 0) this.log.info({ archived }, 'audit: closed processes archived');
    return archived;
  }

  private async archiveRun(e: ListedExecution): Promise<'archived' | 'there' | 'gone'> {
    const processId = e.execution!.workflowId ?? '';
    const runId = e.execution!.runId ?? '';
    let events;
    try {
      events = await runEvents(this.client, processId, runId);
    } catch (err) {
      // Deleted before it could be read (retention ran first, or an operator deleted it): nothing left to keep.
      if ((err as { code?: number }).code === 5) {
        this.log.warn({ processId, runId }, 'audit: a closed run was gone before it was archived');
        this.unanswered.delete(runId);
        return 'gone';
      }
      throw err;
    }
    const run = { runId, events };
    const masked = new TimelineBuilder(this.decoder, maskPhones);
    const unmasked = new TimelineBuilder(this.decoder, noMask);
    await masked.addRun(run);
    await unmasked.addRun(run);
    // The run's own state history gives its changes' reasons, as the timeline route merges them.
    const status = await this.client
      .withDeadline(Date.now() + this.statusWaitMs, () => this.client.workflow.getHandle(processId, runId).query(processStatusQuery))
      .then(
        (answer) => {
          this.unanswered.delete(runId);
          return answer;
        },
        (err: unknown) => {
          // Not answered (in time): the pass fails and a later one archives the run with its reasons, not now
          // without them (a row is written once). A run that cannot answer at all, or not in STATUS_TRIES passes (a replay
          // too long for the wait), is archived without them, so that it cannot hold the cursor back for good.
          const tries = (this.unanswered.get(runId) ?? 0) + 1;
          if (notAnswered(err) && tries < STATUS_TRIES) {
            this.unanswered.set(runId, tries);
            throw new Error(`run ${runId} did not answer its status query (no worker answered within ${this.statusWaitMs} ms)`, { cause: err });
          }
          this.unanswered.delete(runId);
          this.log.warn({ err, processId, runId, tries }, 'audit: a closed run did not answer its status query; archived without its reasons');
          return undefined;
        },
      );
    if (status?.history) {
      masked.mergeReasons(status.history);
      unmasked.mergeReasons(status.history);
    }
    const kind = keyword(e.searchAttributes, KIND.name);
    const state = keyword(e.searchAttributes, STATE.name);
    // Whose process it was, so a tenant key reads only its own customer's archived runs.
    const tenant = keyword(e.searchAttributes, TENANT.name);
    const startedAt = new Date(tsMs(e.startTime) ?? 0).toISOString();
    const closedAt = new Date(tsMs(e.closeTime) ?? 0).toISOString();
    // As the list tells it (api/processes/find.ts): the last change, or the close when that came later.
    const last = await this.lastChange(e.memo?.fields?.[LAST_CHANGE_MEMO]);
    const changedAt = last?.at && last.at >= startedAt ? last.at : startedAt;
    const archivedRun: ArchivedRun = {
      processId,
      runId,
      firstRunId: events[0]?.workflowExecutionStartedEventAttributes?.firstExecutionRunId || runId,
      kind,
      state,
      executionStatus: EXECUTION_STATUS[Number(e.status ?? 0)] ?? 'UNSPECIFIED',
      startedAt,
      closedAt,
      businessKey: kind && processId.startsWith(`${kind}:`) ? processId.slice(kind.length + 1) : processId,
      ...(tenant ? { tenant } : {}),
      summary: { lastChangeAt: closedAt > changedAt ? closedAt : changedAt, ...(last?.reason && last.state === state ? { reason: last.reason } : {}) },
      timeline: { masked: masked.entries, unmasked: unmasked.entries },
    };
    return this.archive.append(archivedRun);
  }

  /** The last-change memo, decoded with the codec; undefined when absent or unreadable. */
  private async lastChange(payload: temporal.api.common.v1.IPayload | null | undefined): Promise<LastChangeMemo | undefined> {
    if (!payload) return undefined;
    try {
      const [plain] = await this.codec.decode([payload as Payload]);
      return defaultPayloadConverter.fromPayload<LastChangeMemo>(plain!);
    } catch {
      return undefined;
    }
  }
}
