// Finding a process by kind and running an update on it: every route that changes a process goes through
// here, so a refused update means the same everywhere (409) and every wait has a deadline.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import Type from 'typebox';
import { ulid } from 'ulid';
import { kindOfWorkflowId, type ProcessKind } from '../../processes/kinds.js';
import { notFound } from '../errors.js';
import { callTemporal, DEFAULT_WAIT_MS, isUpdateLostWithTask } from './temporal-errors.js';

/** A process of one of these kinds, or a 404 (IDs of other kinds are not looked up at all). */
export function handleOf(client: Client, processId: string, kinds: readonly ProcessKind[], what: string): WorkflowHandle {
  const kind = kindOfWorkflowId(processId);
  if (!kind || !kinds.includes(kind)) throw notFound(`${what} process ${processId}`);
  return client.workflow.getHandle(processId);
}

export interface RunUpdateOptions {
  /** Words for the process in errors ("template", "verification"). */
  what: string;
  waitMs?: number;
}

/** Pause before sending an update again that was lost with its workflow task (the server retries the task at once). */
const RESEND_AFTER_MS = 50;

/**
 * Runs an update under the API's deadline: 404 unknown, 409 ended or refused, 504 no answer in time, 503 no Temporal.
 * An update lost with its workflow task is sent again (it carries its operation ID, so it is applied once) until the
 * deadline.
 */
export async function runUpdate<R, A extends [unknown, ...unknown[]]>(
  client: Client,
  handle: WorkflowHandle,
  update: UpdateDefinition<R, A>,
  args: A,
  opts: RunUpdateOptions,
): Promise<R> {
  const deadline = Date.now() + (opts.waitMs ?? DEFAULT_WAIT_MS);
  for (;;) {
    try {
      return await callTemporal(client, handle.workflowId, () => handle.executeUpdate(update, { args }), {
        what: `${opts.what} process`,
        waitMs: Math.max(1, deadline - Date.now()),
      });
    } catch (err) {
      if (!isUpdateLostWithTask(err) || deadline - Date.now() <= RESEND_AFTER_MS) throw err;
      await new Promise((resolve) => setTimeout(resolve, RESEND_AFTER_MS));
    }
  }
}

export const IdempotencyKey = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, description: 'Repeating a request with the same key repeats its answer and changes nothing' }),
  ),
});

/** The operation ID an update carries: the caller's Idempotency-Key, or a fresh one (then a retry is a new operation). */
export const operationId = (headers: { 'idempotency-key'?: string }) => headers['idempotency-key'] ?? ulid();
