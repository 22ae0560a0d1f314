// A sender's change through its process (POST /v1/senders/{processId}/update). A running process takes the update.
// A process that ended with its sender live (ACTIVE; RCS: LAUNCHED) is run again under the same ID for it, as a
// repeated start would be (the new run finds the sender and creates nothing), with the update in the same call
// (update-with-start). A process that ended any other way (FAILED, STOPPED, DRAFT_SAVED) answers 409.
import { WithStartWorkflowOperation, type Client, type WorkflowHandle } from '@temporalio/client';
import { descriptorOf, kindOfWorkflowId, workflowTypeOf, type ProcessKind } from '../../kinds.js';
import { updateSenderUpdate, type OperationOutcome, type SenderChangeNote, type SenderChanges, type UpdateSenderRequest } from '../contract.js';
import type { CreateRcsSenderRequest } from '../../../common/wire/provisioning.js';
import { KIND, STATE } from '../../../common/search-attributes.js';
import { ApiError, invalid, unprocessable } from '../../../api/errors.js';
import { callTemporal, DEFAULT_WAIT_MS } from '../../../api/processes/temporal-errors.js';
import { runUpdate } from '../../../api/processes/update.js';
import { acceptedOrThrow, followSettings, type ProvisioningRouteOptions } from './common.js';
import { bannerErrors } from './schemas.js';

/**
 * Per sender kind, from its descriptor: the fields its change takes (the wire's lists), the state its process ends
 * in while the sender is live (such a process is run again for a change), and its name in errors.
 */
const changeOf = (kind: ProcessKind) => descriptorOf(kind).change;

/**
 * The body's fields for this kind, or a 422 naming the first it does not take: the document allows every channel's
 * fields, and which channel a process is for is a rule between the body and the process (a banner of the wrong size:
 * 422 too, as a start).
 */
export function senderChanges(kind: ProcessKind, body: Record<string, unknown>): SenderChanges {
  const allowed = changeOf(kind)?.fields ?? [];
  for (const field of Object.keys(body)) {
    if (!allowed.includes(field))
      throw unprocessable(`body.${field}`, 'not_updatable', `a ${changeOf(kind)?.name ?? kind}'s change takes only ${allowed.join(', ')}`);
  }
  const banner = body.banner as { width: number; height: number } | undefined;
  const errors = banner ? bannerErrors(banner) : [];
  if (errors.length) throw invalid(errors);
  return body as SenderChanges;
}

interface EndedSender {
  state: string;
  senderId?: string;
  changes?: SenderChangeNote[];
  /** The project the sender lives in (a customer's subproject); runs that ended before it was reported lack it. */
  projectId?: string;
}

type Deps = Pick<ProvisioningRouteOptions, 'client' | 'config' | 'provisioning'>;

/** The start input of a run for a change of the live sender `senderId`, from the platform's sender. */
async function inputForChange(
  kind: ProcessKind,
  ended: { senderId: string; changes?: SenderChangeNote[]; projectId?: string },
  { config, provisioning: parent }: Deps,
): Promise<unknown> {
  const { senderId } = ended;
  const earlierChanges = ended.changes ?? [];
  const projectId = ended.projectId ?? config.platform.credentials.projectId;
  const provisioning = parent.forProject(projectId);
  const common = { projectId, ...followSettings(config), ...(earlierChanges.length ? { earlierChanges } : {}) };
  // The new run's create finds the sender (CHATA by its number or phoneNumberId, CHATB and RCS by displayName): only
  // those and what the details show are taken from it; nothing is sent.
  switch (kind) {
    case 'chata-sender': {
      const s = await provisioning.chataSenders.get(senderId);
      return s.businessAccountId && s.phoneNumberId
        ? {
            ...common,
            mode: 'embedded',
            sender: { businessAccountId: s.businessAccountId, phoneNumberId: s.phoneNumberId, ...(s.phoneNumber ? { phoneNumber: s.phoneNumber } : {}) },
          }
        : { ...common, mode: 'standard', sender: { phoneNumber: s.phoneNumber, displayName: s.displayName } };
    }
    case 'rcs-sender': {
      const s = await provisioning.rcs.get(senderId);
      const sender = { ...s, useCase: s.useCase ?? 'MULTIUSE', countries: s.countries ?? Object.keys(s.countryStatus ?? {}) };
      const fields: (keyof CreateRcsSenderRequest)[] = ['displayName', 'description', 'websites', 'brandPhoneNumber', 'banner', 'logo', 'useCase', 'countries'];
      return { ...common, sender: Object.fromEntries(fields.filter((k) => sender[k] !== undefined).map((k) => [k, sender[k]])), answers: {} };
    }
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
  const words = changeOf(kind)?.name ?? 'sender';
  const live = changeOf(kind)?.live;
  const what = `${words} process`;
  // One deadline for the whole request, however many calls it takes (describe, result, the platform read, the start).
  const deadline = Date.now() + DEFAULT_WAIT_MS;
  const waitMs = () => Math.max(1, deadline - Date.now());
  const call = <R>(fn: () => Promise<R>) => callTemporal(client, processId, fn, { what, waitMs: waitMs() });
  let status = (await call(() => handle.describe())).status.name;
  for (let tries = 1; status === 'RUNNING'; tries++) {
    try {
      return acceptedOrThrow(await runUpdate(client, handle, updateSenderUpdate, [req], { what: words, waitMs: waitMs() }));
    } catch (err) {
      // The run ended between the describe and the update (a change's review ending): its result decides.
      if (tries > 2 || !(err instanceof ApiError && err.code === 'process_ended')) throw err;
      status = (await call(() => handle.describe())).status.name;
    }
  }
  const ended = status === 'COMPLETED' ? await call(() => handle.result() as Promise<EndedSender>) : undefined;
  if (!ended || ended.state !== live || !ended.senderId)
    throw new ApiError(
      409,
      'process_ended',
      `the ${what} ${processId} has ended ${ended?.state ?? status}: only a process that ended with its sender ${live} takes a change; start it again to follow the sender first`,
    );
  const earlier = ended.changes?.find((c) => c.operationId === req.operationId);
  if (earlier) return { accepted: true, state: ended.state, reason: `this change was taken before (${earlier.status})` };
  const input = await inputForChange(kind, { ...ended, senderId: ended.senderId }, deps);
  return acceptedOrThrow(await startWithChange(client, { processId, kind, taskQueue: config.taskQueue, input }, req, waitMs()));
}

function startWithChange(
  client: Client,
  run: { processId: string; kind: ProcessKind; taskQueue: string; input: unknown },
  req: UpdateSenderRequest,
  waitMs: number,
) {
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
    { what: 'sender process', waitMs },
  );
}
