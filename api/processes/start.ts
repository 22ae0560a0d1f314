// Starting a process by its business key: the workflow ID is the key, so a second request finds the first
// process instead of creating a second. What a closed process means for a new request is per process kind.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { workflowTypeOf, type ProcessKind } from '../../processes/kinds.js';
import { KIND, STATE } from '../../common/search-attributes.js';
import type { ErrorDetail } from '../errors.js';
import { processesStarted } from '../metrics/series.js';
import { callTemporal } from './temporal-errors.js';

/**
 * - `after-final`: a request after the process reached a final state (stopped, deleted, active, failed)
 *   starts a new run under the same ID; the old run stays in history (templates, senders).
 * - `after-failure`: only a failed process may start again; a completed one answers the request (subprojects:
 *   the same name is the same subproject).
 * - `never`: one run per ID, ever; any later request answers that run, ended or not (onboardings: the key
 *   names one plan, compared by the route).
 */
export type ReusePolicy = 'after-final' | 'after-failure' | 'never';

const TEMPORAL_REUSE = { 'after-final': 'ALLOW_DUPLICATE', 'after-failure': 'ALLOW_DUPLICATE_FAILED_ONLY', never: 'REJECT_DUPLICATE' } as const;

/**
 * What a start route builds from its validated body: the process to start, and the rules between fields the
 * body breaks (422 when non-empty). Built without throwing, so a plan of many processes reports every error.
 */
export interface BuiltProcess<I = unknown, K extends ProcessKind = ProcessKind> {
  errors: ErrorDetail[];
  processId: string;
  kind: K;
  input: I;
}

/** The workflow that runs it is the kind's (its descriptor, processes/kinds.ts). */
export interface StartRequest {
  kind: ProcessKind;
  processId: string;
  taskQueue: string;
  args: unknown[];
  reuse: ReusePolicy;
  /** The state the process is listed in until its first workflow task runs. */
  initialState?: string;
  /** The process's own route (e.g. /v1/templates/{id}); /v1/processes/{id} by default. */
  self?: (processId: string) => string;
}

export interface Started {
  processId: string;
  kind: ProcessKind;
  /** false: a process with this business key is running (or, `after-failure`, has completed; `never`: has ever run). */
  created: boolean;
  links: { self: string };
}

const processLink = (processId: string) => ({ self: `/v1/processes/${encodeURIComponent(processId)}` });

/** 202 with `created: true` when started; 200 with the existing process otherwise. */
export async function startProcess(client: Client, req: StartRequest): Promise<{ status: 200 | 202; body: Started }> {
  const links = req.self ? { self: req.self(req.processId) } : processLink(req.processId);
  const body = (created: boolean): Started => ({ processId: req.processId, kind: req.kind, created, links });
  try {
    await callTemporal(client, req.processId, () =>
      client.workflow.start(workflowTypeOf(req.kind), {
        workflowId: req.processId,
        taskQueue: req.taskQueue,
        args: req.args,
        typedSearchAttributes: [
          { key: KIND, value: req.kind },
          { key: STATE, value: req.initialState ?? 'CREATING' },
        ],
        workflowIdReusePolicy: TEMPORAL_REUSE[req.reuse],
      }),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return { status: 200, body: body(false) };
  }
  processesStarted.inc({ kind: req.kind });
  return { status: 202, body: body(true) };
}
