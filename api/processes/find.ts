// Reads processes out of Temporal: status from the workflow's query, execution facts from describe,
// lists from visibility. The API keeps no state of its own.
import { Client, WorkflowNotFoundError, WorkflowFailedError } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { KIND, STATE } from '../../common/search-attributes.js';
import { kindOfWorkflowId, type ProcessKind } from '../../contracts/ids.js';
import { processStatusQuery, type ProcessStatus } from '../../contracts/process-status.js';
import { ApiError, notFound } from '../errors.js';

export interface PendingActivityView {
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

export class ProcessService {
  constructor(private readonly client: Client, private readonly queryTimeoutMs = 3_000) {}

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

  async list(opts: { kind?: ProcessKind; state?: string; pageSize: number; pageToken?: string }): Promise<{ processes: ProcessSummary[]; nextPageToken: string }> {
    // Values are validated by the route schemas (enum kinds, upper-case states), so they are safe to quote.
    const clauses = [opts.kind ? `${KIND.name} = '${opts.kind}'` : `${KIND.name} IS NOT NULL`];
    if (opts.state) clauses.push(`${STATE.name} = '${opts.state}'`);
    let nextPageToken: Uint8Array | undefined;
    if (opts.pageToken) {
      nextPageToken = Buffer.from(opts.pageToken, 'base64url');
      if (nextPageToken.length === 0) throw new ApiError(400, 'validation_failed', 'query.pageToken: is not a token this API gave out');
    }
    const res = await this.client.workflowService.listWorkflowExecutions({
      namespace: this.client.options.namespace,
      // No ORDER BY: SQLite visibility (the dev server) does not support it; results come newest first anyway.
      query: clauses.join(' AND '),
      pageSize: opts.pageSize,
      nextPageToken,
    });
    const decodeKeyword = (sa: Record<string, { data?: Uint8Array | null } | undefined> | null | undefined, key: string) => {
      const data = sa?.[key]?.data;
      return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as string) : '';
    };
    return {
      processes: (res.executions ?? []).map((e) => ({
        processId: e.execution?.workflowId ?? '',
        kind: decodeKeyword(e.searchAttributes?.indexedFields, KIND.name),
        state: decodeKeyword(e.searchAttributes?.indexedFields, STATE.name),
        executionStatus: EXECUTION_STATUS[Number(e.status ?? 0)] ?? 'UNSPECIFIED',
        startedAt: tsToIso(e.startTime) ?? '',
        ...(tsToIso(e.closeTime) ? { closedAt: tsToIso(e.closeTime) } : {}),
      })),
      nextPageToken: res.nextPageToken?.length ? Buffer.from(res.nextPageToken).toString('base64url') : '',
    };
  }

  /**
   * The workflow answers its own status; when no worker answers in time (all stopped, or a backlog) the
   * state recorded in the search attributes still says where the process is.
   */
  private async queryStatus(processId: string, attrs: TypedSearchAttributes): Promise<ProcessStatus & { statusSource: ProcessView['statusSource'] }> {
    try {
      const status = await this.client.withDeadline(Date.now() + this.queryTimeoutMs, () =>
        this.client.workflow.getHandle(processId).query(processStatusQuery));
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
