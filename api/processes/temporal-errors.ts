// One mapping from what Temporal answers to HTTP, for every call the API makes on a process: a deadline on
// each call (nothing a caller starts can hang), 404 for an unknown process, 409 for a closed one or a
// refused update, 503 when Temporal cannot be reached and 504 when the process did not answer in time.
import { isGrpcServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApiError, notFound } from '../errors.js';

/** gRPC status codes (grpc-js's `status`), which the Temporal client's errors carry. */
const GrpcStatus = { CANCELLED: 1, DEADLINE_EXCEEDED: 4, FAILED_PRECONDITION: 9, UNAVAILABLE: 14 } as const;

/** How long the API waits on Temporal (and through it on a process) before it answers 504. */
export const DEFAULT_WAIT_MS = 20_000;

/**
 * An update to a process that has closed: Temporal answers "not found ... already completed", or
 * "aborted by closing workflow" when the update met the run closing.
 */
const isProcessEnded = (err: unknown) => /already completed|aborted by closing workflow/i.test((err as Error)?.message ?? '');

const grpcCode = (err: unknown): number | undefined => {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (isGrpcServiceError(e)) return e.code;
  }
  return undefined;
};

/**
 * The update never reached the process: the workflow task that carried it failed on the server (e.g. the task ended
 * the run while a signal came in, so the server refused its commands and retries the task without the update).
 * Nothing ran, so the same update (the same operation ID) can be sent again.
 */
export const isUpdateLostWithTask = (err: unknown) =>
  grpcCode(err) === GrpcStatus.FAILED_PRECONDITION && /unexpected workflow task failure/i.test(messages(err));

const messages = (err: unknown): string => {
  const out: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) out.push(e.message);
  return out.join(' ');
};

function toApiError(processId: string, err: unknown, what = 'process'): unknown {
  if (err instanceof ApiError) return err;
  if (isProcessEnded(err)) return new ApiError(409, 'process_ended', `the ${what} ${processId} has already ended`);
  if (err instanceof WorkflowNotFoundError) return notFound(`${what} ${processId}`);
  // The process refused the update (its validator, or the handler threw): the request does not fit its state.
  if (err instanceof WorkflowUpdateFailedError) return new ApiError(409, 'not_allowed', err.cause?.message ?? err.message);
  const code = grpcCode(err);
  if (code === GrpcStatus.DEADLINE_EXCEEDED || code === GrpcStatus.CANCELLED) {
    return new ApiError(
      504,
      'process_timeout',
      `the ${what} ${processId} did not answer in time; it may still complete: read it with GET /v1/processes/{processId}`,
      [{ field: 'processId', rule: 'deadline', message: processId }],
    );
  }
  if (code === GrpcStatus.UNAVAILABLE)
    return new ApiError(503, 'unavailable', 'Temporal is unreachable; retry later', [{ field: 'processId', rule: 'unavailable', message: processId }], 5_000);
  return err;
}

/** Runs one Temporal call for `processId` under a deadline, with the one error mapping. */
export async function callTemporal<R>(client: Client, processId: string, fn: () => Promise<R>, opts: { what?: string; waitMs?: number } = {}): Promise<R> {
  try {
    return await client.withDeadline(Date.now() + (opts.waitMs ?? DEFAULT_WAIT_MS), fn);
  } catch (err) {
    throw toApiError(processId, err, opts.what);
  }
}
