// What the template and sender routes share: starting a process by its business key, API updates with
// an operation ID, and the answers both give.
import type { SubjectHasher } from '../../../common/subject-hash.js';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import Type from 'typebox';
import { ulid } from 'ulid';
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import type { Config } from '../../../common/config.js';
import { KIND, STATE } from '../../../common/search-attributes.js';
import { kindOfWorkflowId, type ProcessKind } from '../../../contracts/ids.js';
import type { FollowSettings, OperationOutcome } from '../../../contracts/provisioning.js';
import { ApiError, isProcessEnded, notFound, type ErrorDetail } from '../../errors.js';
import type { ProcessService } from '../../processes/find.js';

export interface ProvisioningRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes'>;
  /** Read-only look-ups that make validation errors precise (questionnaire, CHATB categories). */
  provisioning: ProvisioningClient;
  /** Workflow IDs are not encrypted: a sender's phone number appears in them only as this keyed hash. */
  hashSubject: SubjectHasher;
}

export const Started = Type.Object({ processId: Type.String(), kind: Type.String(), created: Type.Boolean(), links: Type.Object({ self: Type.String() }) });
export const Outcome = Type.Object({ accepted: Type.Boolean(), state: Type.String(), reason: Type.Optional(Type.String()) });
export const IdempotencyKey = Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Repeating a request with the same key repeats its answer and changes nothing' })) });

export const operationId = (headers: { 'idempotency-key'?: string }) => headers['idempotency-key'] ?? ulid();

export function invalid(details: ErrorDetail[]): ApiError {
  return new ApiError(400, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
}

export function followSettings(config: Pick<Config, 'processes'>, overdueAfterSeconds?: number): FollowSettings {
  const { pollIntervalMs, overdueAfterMs } = config.processes.provisioning;
  return { pollIntervalMs, overdueAfterMs: overdueAfterSeconds !== undefined ? overdueAfterSeconds * 1000 : overdueAfterMs };
}

export interface StartRequest {
  workflowType: string;
  kind: ProcessKind;
  processId: string;
  args: unknown[];
  links: (processId: string) => { self: string };
}

/** 202 when started; 200 with the same process when one with this business key exists (a failed one may start again). */
export async function startProcess(client: Client, taskQueue: string, req: StartRequest): Promise<{ status: 200 | 202; body: { processId: string; kind: string; created: boolean; links: { self: string } } }> {
  const body = (created: boolean) => ({ processId: req.processId, kind: req.kind, created, links: req.links(req.processId) });
  try {
    await client.workflow.start(req.workflowType, {
      workflowId: req.processId,
      taskQueue,
      args: req.args,
      typedSearchAttributes: [{ key: KIND, value: req.kind }, { key: STATE, value: 'CREATING' }],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return { status: 200, body: body(false) };
  }
  return { status: 202, body: body(true) };
}

/** A process of one of these kinds, or a 404 (IDs of other kinds are not looked up at all). */
export function handleOf(client: Client, processId: string, kinds: readonly ProcessKind[], what: string): WorkflowHandle {
  const kind = kindOfWorkflowId(processId);
  if (!kind || !kinds.includes(kind)) throw notFound(`${what} process ${processId}`);
  return client.workflow.getHandle(processId);
}

/** Runs an update: 404 for an unknown process, 409 when it has ended or the state does not allow it. */
export async function runUpdate(processId: string, what: string, fn: () => Promise<OperationOutcome>): Promise<OperationOutcome> {
  let outcome: OperationOutcome;
  try {
    outcome = await fn();
  } catch (err) {
    if (isProcessEnded(err)) throw new ApiError(409, 'process_ended', `the ${what} process has already ended`);
    if (err instanceof WorkflowNotFoundError) throw notFound(`${what} process ${processId}`);
    if (err instanceof WorkflowUpdateFailedError) throw new ApiError(409, 'not_allowed', err.cause?.message ?? err.message);
    throw err;
  }
  if (outcome.accepted) return outcome;
  // The platform refused the change itself (e.g. invalid components): the request must change.
  if (outcome.errorType === 'PlatformValidationError') throw new ApiError(400, 'platform_rejected', outcome.reason ?? 'the platform refused the change');
  throw new ApiError(409, 'not_allowed', outcome.reason ?? 'not allowed in the current state');
}
