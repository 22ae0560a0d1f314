// A sender's change through its process (POST /v1/senders/{processId}/update). A running process takes the update.
// A process that ended with its sender live (ACTIVE; RCS: LAUNCHED) is run again under the same ID for it, as a
// repeated start would be (the new run finds the sender and creates nothing), with the update in the same call
// (update-with-start). A process that ended any other way (FAILED, STOPPED, DRAFT_SAVED) answers 409.
import { WithStartWorkflowOperation, type Client, type WorkflowHandle } from '@temporalio/client';
import { workflowTypeOf } from '../../../contracts/families.js';
import { kindOfWorkflowId, type ProcessKind } from '../../../contracts/ids.js';
import {
  updateSenderUpdate,
  type OperationOutcome,
  type SenderChangeNote,
  type SenderChanges,
  type UpdateSenderRequest,
} from '../../../contracts/provisioning.js';
import { CHATB_SENDER_UPDATABLE } from '../../../common/wire/provisioning.js';
import { KIND, STATE } from '../../../common/search-attributes.js';
import { ApiError, badRequest } from '../../errors.js';
import { callTemporal } from '../../processes/temporal-errors.js';
import { acceptedOrThrow, followSettings, type ProvisioningRouteOptions } from './common.js';

/** The fields each kind's change takes (the wire's lists); any other field of the body is a 400 naming it. */
const UPDATABLE: Partial<Record<ProcessKind, readonly string[]>> = {
  'chatb-sender': CHATB_SENDER_UPDATABLE,
};

/** The state a sender's process ends in while the sender is live: such a process is run again for a change. */
const LIVE: Partial<Record<ProcessKind, string>> = { 'chatb-sender': 'ACTIVE' };

const WORDS: Partial<Record<ProcessKind, string>> = { 'chatb-sender': 'CHATB sender' };

/** The body's fields for this kind, or a 400 naming the first it does not take. */
export function senderChanges(kind: ProcessKind, body: Record<string, unknown>): SenderChanges {
  const allowed = UPDATABLE[kind] ?? [];
  for (const field of Object.keys(body)) {
    if (!allowed.includes(field)) throw badRequest(`body.${field}`, 'not_updatable', `a ${WORDS[kind] ?? kind}'s change takes only ${allowed.join(', ')}`);
  }
  return body as SenderChanges;
}

interface EndedSender {
  state: string;
  senderId?: string;
  changes?: SenderChangeNote[];
}

type Deps = Pick<ProvisioningRouteOptions, 'client' | 'config' | 'provisioning'>;

/** The start input of a run for a change of the live sender `senderId`, from the platform's sender. */
async function inputForChange(kind: ProcessKind, senderId: string, earlierChanges: SenderChangeNote[], { config, provisioning }: Deps): Promise<unknown> {
  const projectId = config.platform.credentials.projectId;
  const common = { projectId, ...followSettings(config), ...(earlierChanges.length ? { earlierChanges } : {}) };
  switch (kind) {
    case 'chatb-sender': {
      const s = await provisioning.chatbSenders.get(senderId);
      return {
        ...common,
        sender: { displayName: s.displayName, categoryCode: s.categoryCode, ...(s.subcategoryCode ? { subcategoryCode: s.subcategoryCode } : {}) },
      };
    }
    default:
      throw new Error(`no change for ${kind}`);
  }
}

/** Runs the change on the process, or on a new run of it when the process ended with its sender live. */
export async function updateSender(deps: Deps, handle: WorkflowHandle, req: UpdateSenderRequest): Promise<OperationOutcome> {
  const { client, config } = deps;
  const processId = handle.workflowId;
  const kind = kindOfWorkflowId(processId)!;
  const what = `${WORDS[kind] ?? 'sender'} process`;
  const call = <R>(fn: () => Promise<R>) => callTemporal(client, processId, fn, { what });
  const described = await call(() => handle.describe());
  const status = described.status.name;
  if (status === 'RUNNING') return acceptedOrThrow(await call(() => handle.executeUpdate(updateSenderUpdate, { args: [req] })));
  const ended = status === 'COMPLETED' ? await call(() => handle.result() as Promise<EndedSender>) : undefined;
  if (!ended || ended.state !== LIVE[kind] || !ended.senderId)
    throw new ApiError(
      409,
      'process_ended',
      `the ${what} ${processId} has ended ${ended?.state ?? status}: only a process that ended with its sender ${LIVE[kind]} takes a change; start it again to follow the sender first`,
    );
  const earlier = ended.changes?.find((c) => c.operationId === req.operationId);
  if (earlier) return { accepted: true, state: ended.state, reason: `this change was taken before (${earlier.status})` };
  const input = await inputForChange(kind, ended.senderId, ended.changes ?? [], deps);
  return acceptedOrThrow(await startWithChange(client, { processId, kind, taskQueue: config.taskQueue, input }, req));
}

function startWithChange(client: Client, run: { processId: string; kind: ProcessKind; taskQueue: string; input: unknown }, req: UpdateSenderRequest) {
  return callTemporal(
    client,
    run.processId,
    () =>
      client.workflow.executeUpdateWithStart(updateSenderUpdate, {
        args: [req],
        startWorkflowOperation: new WithStartWorkflowOperation(workflowTypeOf(run.kind), {
          workflowId: run.processId,
          taskQueue: run.taskQueue,
          args: [run.input],
          // A run another request started meanwhile takes the change itself.
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          typedSearchAttributes: [
            { key: KIND, value: run.kind },
            { key: STATE, value: 'CREATING' },
          ],
        }),
      }),
    { what: 'sender process' },
  );
}
