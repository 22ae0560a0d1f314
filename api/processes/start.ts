// Starting a process by its business key: the workflow ID is the key, so a second request finds the first
// process instead of creating a second. What a closed process means for a new request is per process kind.
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { ProcessKind } from '../../contracts/ids.js';
import { KIND, STATE } from '../../common/search-attributes.js';
import { callTemporal } from './temporal-errors.js';

/**
 * - `after-final`: a request after the process reached a final state (stopped, deleted, active, failed)
 *   starts a new run under the same ID; the old run stays in history (templates, senders).
 * - `after-failure`: only a failed process may start again; a completed one answers the request (subprojects:
 *   the same name is the same subproject).
 */
export type ReusePolicy = 'after-final' | 'after-failure';

const TEMPORAL_REUSE = { 'after-final': 'ALLOW_DUPLICATE', 'after-failure': 'ALLOW_DUPLICATE_FAILED_ONLY' } as const;

export interface StartRequest {
  workflowType: string;
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
  /** false: a process with this business key is running (or, `after-failure`, has completed). */
  created: boolean;
  links: { self: string };
}

export const processLink = (processId: string) => ({ self: `/v1/processes/${encodeURIComponent(processId)}` });

/** 202 with `created: true` when started; 200 with the existing process otherwise. */
export async function startProcess(client: Client, req: StartRequest): Promise<{ status: 200 | 202; body: Started }> {
  const links = req.self ? { self: req.self(req.processId) } : processLink(req.processId);
  const body = (created: boolean): Started => ({ processId: req.processId, kind: req.kind, created, links });
  try {
    await callTemporal(client, req.processId, () => client.workflow.start(req.workflowType, {
      workflowId: req.processId,
      taskQueue: req.taskQueue,
      args: req.args,
      typedSearchAttributes: [{ key: KIND, value: req.kind }, { key: STATE, value: req.initialState ?? 'CREATING' }],
      workflowIdReusePolicy: TEMPORAL_REUSE[req.reuse],
    }));
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return { status: 200, body: body(false) };
  }
  return { status: 202, body: body(true) };
}
