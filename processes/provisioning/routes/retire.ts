// Retire (senders and templates): the update, and its answer once the process has ended by it.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { retireUpdate, type OperationOutcome } from '../contract.js';
import { ApiError } from '../../../api/errors.js';
import { runUpdate } from '../../../api/processes/update.js';
import { processStatusQuery } from '../../../contracts/process-status.js';
import { acceptedOrThrow } from './common.js';

/**
 * The process ended RETIRED by this operation (its run's operation memory has gone with the run: the history says it).
 * The closed run answers its status only once a worker has replayed it, which can fail or lag on a loaded worker:
 * asked again a few times before the answer is "no".
 */
async function retiredBy(client: Client, handle: WorkflowHandle, op: string): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const status = await client.withDeadline(Date.now() + 5_000, () => handle.query(processStatusQuery)).catch(() => undefined);
    if (status) {
      const mark = `retired through the API (operation ${op})`;
      return status.state === 'RETIRED' && status.history.some((s) => s.state === 'RETIRED' && (s.reason ?? '').startsWith(mark));
    }
    if (attempt === 3) return false;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Runs `retire`; the same operation asked again after the process ended by it is answered the same (else 409 as any). */
export async function retire(client: Client, handle: WorkflowHandle, op: string, reason: string | undefined, what: string): Promise<OperationOutcome> {
  try {
    return acceptedOrThrow(await runUpdate(client, handle, retireUpdate, [{ operationId: op, ...(reason ? { reason } : {}) }], { what }));
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'process_ended') || !(await retiredBy(client, handle, op))) throw err;
    return { accepted: true, state: 'RETIRED' };
  }
}
