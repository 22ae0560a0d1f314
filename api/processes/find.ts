// Reads processes out of Temporal: status from the workflow's query, execution facts from describe,
// lists from visibility. The API keeps no state of its own.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { Client, isGrpcServiceError, WorkflowNotFoundError, WorkflowFailedError } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import type { CodecKey } from '../../common/codec.js';
import { KIND, STATE } from '../../common/search-attributes.js';
import { kindOfWorkflowId, type ProcessKind } from '../../contracts/ids.js';
import { processStatusQuery, type ProcessStatus } from '../../contracts/process-status.js';
import { ApiError, badRequest, notFound } from '../errors.js';

interface PendingActivityView {
  activity: string;
  attempt: number;
  state: string;
  lastFailure?: string;
  nextAttemptAt?: string;
}

export interface ProcessView extends ProcessStatus {
  processId: string;
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
}

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
}

export class ProcessService {
  private readonly pageTokens: PageTokens;
  private readonly queryTimeoutMs: number;
  private readonly listTimeoutMs: number;

  constructor(
    private readonly client: Client,
    opts: ProcessServiceOptions = {},
  ) {
    this.queryTimeoutMs = opts.queryTimeoutMs ?? 3_000;
    this.listTimeoutMs = opts.listTimeoutMs ?? LIST_TIMEOUT_MS;
    this.pageTokens = new PageTokens(opts.pageTokenKey ?? randomBytes(32));
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
    const view: ProcessView = {
      processId,
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
   * Processes newest first, by kind, state, start time and business key. `key` is matched as a whole process
   * ID (`<kind>:<key>` when `kind` is given and the key does not start with it): Temporal's SQL visibility
   * (the dev server's) has no prefix match on workflow IDs, so a partial key matches nothing.
   */
  async list(opts: {
    kind?: ProcessKind;
    state?: string;
    startedAfter?: string;
    startedBefore?: string;
    key?: string;
    pageSize?: number;
    pageToken?: string;
  }): Promise<{ processes: ProcessSummary[]; nextPageToken: string }> {
    const clauses = [opts.kind ? `${KIND.name} = ${quote(opts.kind)}` : `${KIND.name} IS NOT NULL`];
    if (opts.state) clauses.push(`${STATE.name} = ${quote(opts.state)}`);
    if (opts.startedAfter) clauses.push(`StartTime >= ${quote(instant(opts.startedAfter, 'query.startedAfter'))}`);
    if (opts.startedBefore) clauses.push(`StartTime < ${quote(instant(opts.startedBefore, 'query.startedBefore'))}`);
    if (opts.key !== undefined) {
      const id = opts.kind && !opts.key.startsWith(`${opts.kind}:`) ? `${opts.kind}:${opts.key}` : opts.key;
      clauses.push(`WorkflowId = ${quote(id)}`);
    }
    let nextPageToken: Uint8Array | undefined;
    if (opts.pageToken) {
      nextPageToken = this.pageTokens.decode(opts.pageToken);
      if (!nextPageToken) throw badPageToken();
    }
    const query = clauses.join(' AND ');
    const listPage = (pageSize: number, token: Uint8Array | undefined, timeoutMs: number) =>
      this.client.withDeadline(Date.now() + timeoutMs, () =>
        this.client.workflowService.listWorkflowExecutions({
          namespace: this.client.options.namespace,
          // No ORDER BY: SQLite visibility (the dev server) does not support it; results come newest first anyway.
          query,
          pageSize,
          nextPageToken: token,
        }),
      );
    let res;
    try {
      res = await listPage(opts.pageSize ?? 50, nextPageToken, this.listTimeoutMs);
    } catch (err) {
      const code = grpcCode(err);
      // A token we gave out that Temporal no longer reads (its visibility store changed, say) is still the
      // caller's to replace. Temporal answers it with UNKNOWN, which the client retries until the deadline:
      // if the same list answers at once without the token, the token was the trouble.
      if (nextPageToken && (code === Grpc.UNKNOWN || code === Grpc.INVALID_ARGUMENT)) throw badPageToken();
      if (
        nextPageToken &&
        code === Grpc.DEADLINE_EXCEEDED &&
        (await listPage(1, undefined, 1_000).then(
          () => true,
          () => false,
        ))
      )
        throw badPageToken();
      throw visibilityFailure(err, 'list the processes', this.listTimeoutMs);
    }
    const decodeKeyword = (sa: Record<string, { data?: Uint8Array | null } | undefined> | null | undefined, key: string) => {
      const data = sa?.[key]?.data;
      return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as string) : '';
    };
    return {
      processes: (res.executions ?? []).map((e) => ({
        processId: e.execution?.workflowId ?? '',
        runId: e.execution?.runId ?? '',
        kind: decodeKeyword(e.searchAttributes?.indexedFields, KIND.name),
        state: decodeKeyword(e.searchAttributes?.indexedFields, STATE.name),
        executionStatus: EXECUTION_STATUS[Number(e.status ?? 0)] ?? 'UNSPECIFIED',
        startedAt: tsToIso(e.startTime) ?? '',
        ...(tsToIso(e.closeTime) ? { closedAt: tsToIso(e.closeTime) } : {}),
      })),
      nextPageToken: res.nextPageToken?.length ? this.pageTokens.encode(res.nextPageToken) : '',
    };
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
