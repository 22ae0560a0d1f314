// Reads processes out of Temporal: status from the workflow's query, execution facts from describe,
// lists from visibility. The API keeps no state of its own.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { Client, isGrpcServiceError, WorkflowNotFoundError, WorkflowFailedError } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { CodecKey } from '../../common/codec.js';
import { maskPhoneNumbers } from '../../common/logger.js';
import { KIND, REFERENCE, STATE, TENANT } from '../../common/search-attributes.js';
import { kindOfWorkflowId, PROCESS_KINDS, type ProcessKind } from '../../processes/kinds.js';
import { LAST_CHANGE_MEMO, processStatusQuery, type LastChangeMemo, type ProcessStatus } from '../../contracts/process-status.js';
import type { ArchiveCursor, ArchivedListing, ArchiveFilter, AuditArchive } from '../../store/audit-archive.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { currentTenant } from '../plugins/actor.js';
import { attentionClauses, attentionOf, knownStates, type Attention } from './attention.js';

interface PendingActivityView {
  activity: string;
  attempt: number;
  state: string;
  lastFailure?: string;
  nextAttemptAt?: string;
}

export interface ProcessView extends ProcessStatus {
  processId: string;
  /** The customer it belongs to (started by a tenant key, or a child of such a process). */
  tenant?: string;
  /** 'workflow' when the process answered itself; 'search-attributes' when no worker answered in time. */
  statusSource: 'workflow' | 'search-attributes';
  execution: { status: string; runId: string; startedAt: string; closedAt?: string; historyLength: number };
  pendingActivities: PendingActivityView[];
  failure?: string;
}

export interface ProcessSummary {
  processId: string;
  /** A business key can be followed again after a final state: the run tells those processes apart. */
  runId: string;
  kind: string;
  state: string;
  executionStatus: string;
  startedAt: string;
  closedAt?: string;
  /** The process ID after `<kind>:`: the caller's key. */
  businessKey: string;
  /** When the state last changed (the run's start when it has not yet; the close when that came later). */
  lastChangeAt: string;
  /** Why it last changed, phone numbers masked; absent when the change gave none. */
  reason?: string;
  attention?: Attention;
  tenant?: string;
  /** temporal: from its visibility; archive: from the store's audit archive, its history gone from Temporal. */
  source: 'temporal' | 'archive';
}

export interface ListOptions {
  kind?: ProcessKind;
  /** One customer's processes (a tenant key sees only its own, whatever this says). */
  tenant?: string;
  state?: string;
  startedAfter?: string;
  startedBefore?: string;
  key?: string;
  q?: string;
  sort?: 'started' | 'lastChange';
  pageSize?: number;
  pageToken?: string;
}

export interface ProcessCounts {
  total: number;
  waitingOnPerson: number;
  failed: number;
  byKind: { kind: string; count: number }[];
  byState: { state: string; count: number }[];
  /** Processes in a state not listed in byState (a platform state relayflow does not know yet). */
  otherStates: number;
}

/** How many processes sort=lastChange reads to order them (Temporal's SQL visibility cannot order by a memo or an attribute). */
const SORT_WINDOW = 1_000;
/** How many count queries run at once (counts by kind and state are one query each: visibility groups by ExecutionStatus only). */
const COUNT_CONCURRENCY = 8;
/** A page token of sort=lastChange: an offset into the ordered window, behind the same MAC as Temporal's. */
const OFFSET_TOKEN = Buffer.from('relayflow-offset:');
/** A page token into the audit archive, once Temporal's list is done: where the archive's page ended. */
const ARCHIVE_TOKEN = Buffer.from('relayflow-archive:');
/** The most archive reads one page makes while it skips runs Temporal still lists. */
const ARCHIVE_READS = 5;

const EXECUTION_STATUS = ['UNSPECIFIED', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT'];

const tsToIso = (t?: { seconds?: unknown; nanos?: number | null } | null) =>
  t?.seconds != null ? new Date(Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString() : undefined;

/** The innermost cause says why ("displayName rejected by policy"), not "Activity task failed". */
function rootCause(err: Error): string {
  let e: Error = err instanceof WorkflowFailedError && err.cause ? err.cause : err;
  while (e.cause instanceof Error) e = e.cause;
  return e.message;
}

/** A visibility-query string literal: backslashes and quotes escaped, so no value can end the literal early. */
export const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** A date-time as Temporal's visibility reads it (RFC 3339 in UTC); one JavaScript cannot place (a leap second) is a 400. */
function instant(value: string, field: string): string {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw badRequest(field, 'format', 'must be a date-time, e.g. 2025-01-31T12:00:00Z');
  return new Date(t).toISOString();
}

/** How long a list waits on Temporal's visibility before it answers 504 (the client retries some errors until then). */
export const LIST_TIMEOUT_MS = 5_000;
const MAC_BYTES = 16;
/** gRPC status codes (grpc-js's `status`). */
const Grpc = { CANCELLED: 1, UNKNOWN: 2, INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, UNAVAILABLE: 14 } as const;
const grpcCode = (err: unknown): number | undefined => {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (isGrpcServiceError(e)) return e.code;
  return undefined;
};
/** A visibility call's failure in the API's words: 504 past its deadline, 503 when Temporal is unreachable. */
export function visibilityFailure(err: unknown, what: string, timeoutMs: number): unknown {
  const code = grpcCode(err);
  if (code === Grpc.DEADLINE_EXCEEDED || code === Grpc.CANCELLED)
    return new ApiError(504, 'list_timeout', `Temporal did not ${what} within ${timeoutMs / 1000} s; retry`);
  if (code === Grpc.UNAVAILABLE) return new ApiError(503, 'unavailable', 'Temporal is unreachable; retry later', undefined, 5_000);
  return err;
}

const badPageToken = () =>
  badRequest('query.pageToken', 'page_token', 'is not a token this API gave out: pass the nextPageToken of the previous page as it is');

/** The page-token key, derived from the oldest codec key (like the subject hash): shared by every API instance, stable across rotation. */
export const pageTokenKey = (keys: CodecKey[]) => Buffer.from(hkdfSync('sha256', keys[keys.length - 1]!.key, Buffer.alloc(0), 'relayflow page token', 32));

/**
 * Page tokens are Temporal's token behind a MAC. Temporal answers a token it cannot read with UNKNOWN, which
 * the client retries for ~20 s and then fails with 500: a token this API did not give out never reaches it.
 */
export class PageTokens {
  constructor(private readonly key: Buffer) {}

  encode(raw: Uint8Array): string {
    return Buffer.concat([this.mac(raw), raw]).toString('base64url');
  }

  /** Temporal's token, or undefined when this is not a token this API gave out (or it was altered). */
  decode(token: string): Buffer | undefined {
    const buf = Buffer.from(token, 'base64url');
    // Node's decoder skips junk silently: only the canonical spelling is a token we wrote.
    if (buf.length <= MAC_BYTES || buf.toString('base64url') !== token) return undefined;
    const raw = buf.subarray(MAC_BYTES);
    return timingSafeEqual(buf.subarray(0, MAC_BYTES), this.mac(raw)) ? raw : undefined;
  }

  private mac(raw: Uint8Array): Buffer {
    return createHmac('sha256', this.key).update(raw).digest().subarray(0, MAC_BYTES);
  }
}

export interface ProcessServiceOptions {
  queryTimeoutMs?: number;
  listTimeoutMs?: number;
  /** pageTokenKey(config.codecKeys); without one, tokens are valid for this instance only. */
  pageTokenKey?: Buffer;
  /** The audit archive: the list goes on with processes whose histories Temporal no longer has. */
  archive?: AuditArchive;
}

type ListedExecution = NonNullable<temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse['executions']>[number];
type Payload = temporal.api.common.v1.IPayload;

const decodeKeyword = (sa: Record<string, { data?: Uint8Array | null } | undefined> | null | undefined, key: string) => {
  const data = sa?.[key]?.data;
  return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as string) : '';
};
const isOffsetToken = (raw: Buffer) => raw.subarray(0, OFFSET_TOKEN.length).equals(OFFSET_TOKEN);
const isArchiveToken = (raw: Buffer) => raw.subarray(0, ARCHIVE_TOKEN.length).equals(ARCHIVE_TOKEN);
function archiveCursorOf(raw: Buffer): ArchiveCursor | undefined {
  try {
    const c = JSON.parse(raw.subarray(ARCHIVE_TOKEN.length).toString('utf8')) as Partial<ArchiveCursor> | null;
    return c && typeof c.closedAt === 'string' && Number.isSafeInteger(c.seq) ? { closedAt: c.closedAt, seq: c.seq! } : undefined;
  } catch {
    return undefined;
  }
}
function offsetOf(raw: Buffer): number | undefined {
  const text = raw.subarray(OFFSET_TOKEN.length).toString('latin1');
  return /^(0|[1-9]\d{0,5})$/.test(text) ? Number(text) : undefined;
}

/** A kind's details that are kept outside its process until a message brings them (the details the view shows). */
export type PendingDetails = (processId: string, details: Record<string, unknown>) => Promise<Record<string, unknown>>;

export class ProcessService {
  private readonly pageTokens: PageTokens;
  private readonly pendingDetails = new Map<ProcessKind, PendingDetails>();
  private readonly queryTimeoutMs: number;
  private readonly listTimeoutMs: number;
  private readonly archive: AuditArchive | undefined;

  constructor(
    private readonly client: Client,
    opts: ProcessServiceOptions = {},
  ) {
    this.queryTimeoutMs = opts.queryTimeoutMs ?? 3_000;
    this.listTimeoutMs = opts.listTimeoutMs ?? LIST_TIMEOUT_MS;
    this.pageTokens = new PageTokens(opts.pageTokenKey ?? randomBytes(32));
    this.archive = opts.archive;
  }

  /** A running process of `kind` shows what `read` adds to its details (a verification's SMS receipt kept in the store). */
  addPendingDetails(kind: ProcessKind, read: PendingDetails): void {
    this.pendingDetails.set(kind, read);
  }

  async get(processId: string, expectedKind?: ProcessKind): Promise<ProcessView> {
    if (expectedKind && kindOfWorkflowId(processId) !== expectedKind) throw notFound(`${expectedKind} process ${processId}`);
    const handle = this.client.workflow.getHandle(processId);
    let description;
    try {
      description = await handle.describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw notFound(`process ${processId}`);
      throw err;
    }
    const status = await this.queryStatus(processId, description.typedSearchAttributes);
    const pending =
      description.status.name === 'RUNNING' && status.statusSource === 'workflow' ? this.pendingDetails.get(status.kind as ProcessKind) : undefined;
    if (pending) status.details = await pending(processId, status.details as Record<string, unknown>);
    const tenant = description.typedSearchAttributes.get(TENANT);
    const view: ProcessView = {
      processId,
      ...(tenant ? { tenant } : {}),
      ...status,
      execution: {
        status: description.status.name,
        runId: description.runId,
        startedAt: description.startTime.toISOString(),
        ...(description.closeTime ? { closedAt: description.closeTime.toISOString() } : {}),
        historyLength: description.historyLength,
      },
      pendingActivities: (description.raw.pendingActivities ?? []).map((a) => ({
        activity: a.activityType?.name ?? 'unknown',
        attempt: a.attempt ?? 1,
        state: String(a.state ?? ''),
        ...(a.lastFailure?.message ? { lastFailure: a.lastFailure.message } : {}),
        ...(tsToIso(a.nextAttemptScheduleTime) ? { nextAttemptAt: tsToIso(a.nextAttemptScheduleTime) } : {}),
      })),
    };
    if (description.status.name === 'FAILED') view.failure = await this.failureOf(processId);
    return view;
  }

  /**
   * Processes by kind, state, start time, business key and text, newest first (Temporal's order: running ones by
   * start, then closed ones by close) or, with sort=lastChange, by last change among the first SORT_WINDOW of
   * that order. `key` is matched as a whole process ID (`<kind>:<key>` when `kind` is given and the key does not
   * start with it); `q` as the start of a process ID, of a business key under any kind, or a whole caller's reference.
   */
  async list(opts: ListOptions): Promise<{ processes: ProcessSummary[]; nextPageToken: string; windowFull?: boolean }> {
    const query = this.filterQuery(opts, true);
    const pageSize = opts.pageSize ?? 50;
    let raw: Buffer | undefined;
    if (opts.pageToken) {
      raw = this.pageTokens.decode(opts.pageToken);
      if (!raw || isOffsetToken(raw) !== (opts.sort === 'lastChange')) throw badPageToken();
      if (isArchiveToken(raw)) {
        const cursor = archiveCursorOf(raw);
        if (!cursor || !this.archive || opts.sort === 'lastChange') throw badPageToken();
        return this.archivePage(opts, pageSize, cursor);
      }
    }
    if (opts.sort === 'lastChange') {
      const offset = raw ? offsetOf(raw) : 0;
      if (offset === undefined) throw badPageToken();
      const res = await this.listPage(query, SORT_WINDOW, undefined, this.listTimeoutMs).catch((err: unknown) =>
        Promise.reject(visibilityFailure(err, 'list the processes', this.listTimeoutMs)),
      );
      const all = (await this.summaries(res.executions ?? [])).sort((a, b) => b.lastChangeAt.localeCompare(a.lastChangeAt));
      const page = all.slice(offset, offset + pageSize);
      const next = offset + pageSize < all.length ? this.pageTokens.encode(Buffer.concat([OFFSET_TOKEN, Buffer.from(String(offset + pageSize))])) : '';
      return { processes: page, nextPageToken: next, windowFull: (res.nextPageToken?.length ?? 0) > 0 };
    }
    let res;
    try {
      res = await this.listPage(query, pageSize, raw, this.listTimeoutMs);
    } catch (err) {
      const code = grpcCode(err);
      // A token we gave out that Temporal no longer reads (its visibility store changed, say) is still the
      // caller's to replace. Temporal answers it with UNKNOWN, which the client retries until the deadline:
      // if the same list answers at once without the token, the token was the trouble.
      if (raw && (code === Grpc.UNKNOWN || code === Grpc.INVALID_ARGUMENT)) throw badPageToken();
      if (
        raw &&
        code === Grpc.DEADLINE_EXCEEDED &&
        (await this.listPage(query, 1, undefined, 1_000).then(
          () => true,
          () => false,
        ))
      )
        throw badPageToken();
      throw visibilityFailure(err, 'list the processes', this.listTimeoutMs);
    }
    const processes = await this.summaries(res.executions ?? []);
    if (res.nextPageToken?.length) return { processes, nextPageToken: this.pageTokens.encode(res.nextPageToken) };
    // Temporal's list is done: it goes on with archived processes whose histories are gone, in the same order,
    // from before the oldest close Temporal listed (retention deletes the oldest first: later ones are all there).
    if (!this.archive) return { processes, nextPageToken: '' };
    const oldest = processes.reduce<string | undefined>((min, p) => (p.closedAt && (!min || p.closedAt < min) ? p.closedAt : min), undefined);
    const from = oldest ? { closedAt: oldest, seq: 0 } : undefined;
    if (processes.length >= pageSize) {
      const more = (await this.archive.list(this.archiveFilter(opts), 1, from)).runs.length > 0;
      return { processes, nextPageToken: more ? this.archiveToken(from) : '' };
    }
    const rest = await this.archivePage(opts, pageSize - processes.length, from);
    return { processes: [...processes, ...rest.processes], nextPageToken: rest.nextPageToken };
  }

  /** The list's filters as the archive reads them; `q` matches process IDs only (the archive keeps no caller's reference). */
  private archiveFilter(opts: ListOptions): ArchiveFilter {
    const q = opts.q?.trim();
    const tenant = currentTenant() ?? opts.tenant;
    return {
      ...(opts.kind ? { kind: opts.kind } : {}),
      ...(tenant ? { tenant } : {}),
      ...(opts.state ? { state: opts.state } : {}),
      ...(opts.startedAfter ? { startedAfter: instant(opts.startedAfter, 'query.startedAfter') } : {}),
      ...(opts.startedBefore ? { startedBefore: instant(opts.startedBefore, 'query.startedBefore') } : {}),
      ...(opts.key !== undefined ? { processId: opts.kind && !opts.key.startsWith(`${opts.kind}:`) ? `${opts.kind}:${opts.key}` : opts.key } : {}),
      ...(q !== undefined ? { prefixes: [q, ...(opts.kind ? [opts.kind] : PROCESS_KINDS).map((k) => `${k}:${q}`)] } : {}),
    };
  }

  /**
   * A page of archived runs that Temporal no longer lists (their histories deleted by retention), newest closed
   * first, after `cursor`; the filters as the list's, but for `q` a caller's reference (the archive keeps none).
   */
  private async archivePage(
    opts: ListOptions,
    pageSize: number,
    cursor: ArchiveCursor | undefined,
  ): Promise<{ processes: ProcessSummary[]; nextPageToken: string }> {
    const archive = this.archive!;
    const filter = this.archiveFilter(opts);
    const processes: ProcessSummary[] = [];
    let at = cursor;
    let more = true;
    for (let reads = 0; more && processes.length < pageSize && reads < ARCHIVE_READS; reads++) {
      const page = await archive.list(filter, pageSize - processes.length, at);
      more = page.more;
      if (page.runs.length === 0) break;
      at = page.runs.at(-1);
      const inTemporal = await this.runsInTemporal(page.runs.map((r) => r.runId));
      for (const r of page.runs) if (!inTemporal.has(r.runId)) processes.push(this.archivedSummary(r));
    }
    return { processes, nextPageToken: more && at ? this.archiveToken(at) : '' };
  }

  /** Which of the runs Temporal's visibility still lists (one query): those are listed from Temporal. */
  private async runsInTemporal(runIds: string[]): Promise<Set<string>> {
    const res = await this.listPage(`RunId IN (${runIds.map(quote).join(', ')})`, runIds.length, undefined, this.listTimeoutMs).catch((err: unknown) =>
      Promise.reject(visibilityFailure(err, 'list the processes', this.listTimeoutMs)),
    );
    return new Set((res.executions ?? []).map((e) => e.execution?.runId ?? ''));
  }

  private archivedSummary(r: ArchivedListing): ProcessSummary {
    const attention = attentionOf(r.kind, r.state, r.executionStatus);
    return {
      processId: r.processId,
      runId: r.runId,
      kind: r.kind,
      state: r.state,
      executionStatus: r.executionStatus,
      startedAt: r.startedAt,
      closedAt: r.closedAt,
      businessKey: r.businessKey,
      lastChangeAt: r.summary.lastChangeAt,
      ...(r.summary.reason ? { reason: maskPhoneNumbers(r.summary.reason) } : {}),
      ...(attention ? { attention } : {}),
      ...(r.tenant ? { tenant: r.tenant } : {}),
      source: 'archive',
    };
  }

  private archiveToken(cursor: ArchiveCursor | undefined): string {
    return this.pageTokens.encode(Buffer.concat([ARCHIVE_TOKEN, Buffer.from(JSON.stringify(cursor ?? { closedAt: '9999-12-31T00:00:00.000Z', seq: 0 }))]));
  }

  /**
   * How many processes match the filters (all of list's but state and paging): in all, waiting on a person,
   * failed, by kind and by state. One count query each, side by side, under one deadline.
   */
  async counts(opts: Pick<ListOptions, 'kind' | 'tenant' | 'startedAfter' | 'startedBefore' | 'key' | 'q'>): Promise<ProcessCounts> {
    const base = this.filterQuery(opts, false);
    const and = (clause: string) => `${base} AND ${clause}`;
    const attention = attentionClauses(quote, STATE.name, KIND.name);
    const kinds = opts.kind ? [opts.kind] : [...PROCESS_KINDS];
    const states = knownStates(opts.kind);
    const queries = [
      base,
      and(attention['waiting-on-person']),
      and(attention.failed),
      ...kinds.map((k) => and(`${KIND.name} = ${quote(k)}`)),
      ...states.map((st) => and(`${STATE.name} = ${quote(st)}`)),
    ];
    const deadline = Date.now() + this.listTimeoutMs;
    const results = new Array<number>(queries.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < queries.length; i = next++) {
        const res = await this.client.withDeadline(deadline, () =>
          this.client.workflowService.countWorkflowExecutions({ namespace: this.client.options.namespace, query: queries[i] }),
        );
        results[i] = Number(res.count ?? 0);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(COUNT_CONCURRENCY, queries.length) }, worker));
    } catch (err) {
      throw visibilityFailure(err, 'count the processes', this.listTimeoutMs);
    }
    const [total = 0, waitingOnPerson = 0, failed = 0] = results;
    const byKind = kinds.map((kind, i) => ({ kind, count: results[3 + i]! })).filter((c) => c.count > 0);
    const byState = states.map((state, i) => ({ state, count: results[3 + kinds.length + i]! })).filter((c) => c.count > 0);
    return { total, waitingOnPerson, failed, byKind, byState, otherStates: Math.max(0, total - byState.reduce((n, c) => n + c.count, 0)) };
  }

  /** The visibility query of the list's filters (state only when `withState`); a 400 names a date-time it cannot read. */
  private filterQuery(opts: ListOptions, withState: boolean): string {
    const clauses = [opts.kind ? `${KIND.name} = ${quote(opts.kind)}` : `${KIND.name} IS NOT NULL`];
    // A tenant key's own customer, whatever the query asks: another customer's processes are not there for it.
    const tenant = currentTenant() ?? opts.tenant;
    if (tenant) clauses.push(`${TENANT.name} = ${quote(tenant)}`);
    if (withState && opts.state) clauses.push(`${STATE.name} = ${quote(opts.state)}`);
    if (opts.startedAfter) clauses.push(`StartTime >= ${quote(instant(opts.startedAfter, 'query.startedAfter'))}`);
    if (opts.startedBefore) clauses.push(`StartTime < ${quote(instant(opts.startedBefore, 'query.startedBefore'))}`);
    if (opts.key !== undefined) {
      const id = opts.kind && !opts.key.startsWith(`${opts.kind}:`) ? `${opts.kind}:${opts.key}` : opts.key;
      clauses.push(`WorkflowId = ${quote(id)}`);
    }
    if (opts.q !== undefined) {
      const q = opts.q.trim();
      const prefixes = [q, ...(opts.kind ? [opts.kind] : PROCESS_KINDS).map((k) => `${k}:${q}`)];
      clauses.push(`(${[...prefixes.map((p) => `WorkflowId STARTS_WITH ${quote(p)}`), `${REFERENCE.name} = ${quote(q)}`].join(' OR ')})`);
    }
    return clauses.join(' AND ');
  }

  private listPage(query: string, pageSize: number, token: Uint8Array | undefined, timeoutMs: number) {
    return this.client.withDeadline(Date.now() + timeoutMs, () =>
      this.client.workflowService.listWorkflowExecutions({
        namespace: this.client.options.namespace,
        // No ORDER BY: SQL visibility (the dev server's, the cluster's) does not support it; running ones come
        // first, newest started first, then closed ones, last closed first.
        query,
        pageSize,
        nextPageToken: token,
      }),
    );
  }

  private async summaries(executions: ListedExecution[]): Promise<ProcessSummary[]> {
    return Promise.all(
      executions.map(async (e) => {
        const processId = e.execution?.workflowId ?? '';
        const kind = decodeKeyword(e.searchAttributes?.indexedFields, KIND.name);
        const state = decodeKeyword(e.searchAttributes?.indexedFields, STATE.name);
        const tenant = decodeKeyword(e.searchAttributes?.indexedFields, TENANT.name);
        const executionStatus = EXECUTION_STATUS[Number(e.status ?? 0)] ?? 'UNSPECIFIED';
        const startedAt = tsToIso(e.startTime) ?? '';
        const closedAt = tsToIso(e.closeTime);
        const last = await this.lastChange(e.memo?.fields?.[LAST_CHANGE_MEMO]);
        const changedAt = last?.at && last.at >= startedAt ? last.at : startedAt;
        const lastChangeAt = closedAt && closedAt > changedAt ? closedAt : changedAt;
        const attention = attentionOf(kind, state, executionStatus);
        return {
          processId,
          runId: e.execution?.runId ?? '',
          kind,
          state,
          executionStatus,
          startedAt,
          ...(closedAt ? { closedAt } : {}),
          businessKey: kind && processId.startsWith(`${kind}:`) ? processId.slice(kind.length + 1) : processId,
          lastChangeAt,
          ...(last?.reason && last.state === state ? { reason: maskPhoneNumbers(last.reason) } : {}),
          ...(attention ? { attention } : {}),
          ...(tenant ? { tenant } : {}),
          source: 'temporal' as const,
        };
      }),
    );
  }

  /** The last-change memo, decoded with the client's codec; undefined when absent or unreadable (a key rotated out). */
  private async lastChange(payload: Payload | null | undefined): Promise<LastChangeMemo | undefined> {
    if (!payload) return undefined;
    try {
      const converter = this.client.options.loadedDataConverter;
      let payloads = [payload] as Payload[];
      for (const codec of [...converter.payloadCodecs].reverse()) payloads = await codec.decode(payloads);
      return converter.payloadConverter.fromPayload<LastChangeMemo>(payloads[0]!);
    } catch {
      return undefined;
    }
  }

  /**
   * The workflow answers its own status; when no worker answers in time (all stopped, or a backlog) the
   * state recorded in the search attributes still says where the process is.
   */
  private async queryStatus(processId: string, attrs: TypedSearchAttributes): Promise<ProcessStatus & { statusSource: ProcessView['statusSource'] }> {
    try {
      const status = await this.client.withDeadline(Date.now() + this.queryTimeoutMs, () =>
        this.client.workflow.getHandle(processId).query(processStatusQuery),
      );
      return { ...status, statusSource: 'workflow' };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw notFound(`process ${processId}`);
      return {
        kind: attrs.get(KIND) ?? kindOfWorkflowId(processId) ?? 'unknown',
        state: attrs.get(STATE) ?? 'UNKNOWN',
        since: '',
        history: [],
        details: {},
        statusSource: 'search-attributes',
      };
    }
  }

  private async failureOf(processId: string): Promise<string> {
    try {
      await this.client.workflow.getHandle(processId).result();
      return '';
    } catch (err) {
      return rootCause(err as Error);
    }
  }
}
