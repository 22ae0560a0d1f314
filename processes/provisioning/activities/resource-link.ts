// Linking a provisioning process to its platform resource in relayflow's store (store/resource-links.ts), so the
// webhook intake signals it directly, then asking the resource's inbox, if a webhook started one before the link, to
// forward what it holds. Link first, inbox second, while the intake puts an event in the inbox first and reads the
// link second: whatever the interleaving, one of the two sees the other, so the process gets the event (maybe twice:
// it drops duplicates).
//
// A create activity links the process running it the moment the platform answers with the resource's ID, before it
// returns (`processLinker`): a webhook the create set off then finds the link instead of starting an inbox, unless it
// overtook the platform's answer. The order above holds inside the activity, so that race is covered as before. A
// create retried after the platform made the resource (its answer, or the link, lost with the attempt) finds the
// resource and links again: a link is idempotent (linking again renews it) and the inbox forwards again (duplicates
// are dropped). `linkResource` stays for a resource a process adopts without creating it (a CHATA business account).
import { asyncLocalStorage, Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { workflowIds } from '../../kinds.js';
import { attachSignal, type LinkResourceInput, type LinkResourceResult, type ResourceInboxWorkflow, type ResourceRef } from '../contract.js';
import type { ResourceLinkStore } from '../../../store/resource-links.js';
import { findFirst, findOrCreate, LOOKUP_PAGE_SIZE } from '../../../platform/lookup.js';

/** What linking needs: Temporal for the inbox's signal, the store for the link (without it, the inbox routes). */
export interface LinkDeps {
  temporal?: Client | undefined;
  links?: ResourceLinkStore | undefined;
  inboxIdleMs?: number | undefined;
}

export function createResourceLinkActivities(deps: LinkDeps) {
  return {
    /** Idempotent: linking again bumps the link's generation; attaching again makes the inbox forward again (dropped as duplicates). */
    async linkResource({ resource, processId }: LinkResourceInput): Promise<LinkResourceResult> {
      return linkProcess(deps, resource, processId, () => Context.current().info.taskQueue);
    },
  };
}

/**
 * For a create activity: call it before the platform's create (a worker that cannot link fails before anything is
 * made), then `link` the resource the platform answered with, before returning. Outside a workflow's activity (a
 * direct call, as in unit tests) there is no process to link, and it links nothing.
 */
export function processLinker(deps: LinkDeps): { link(resource: ResourceRef): Promise<void> } {
  const processId = activityProcessId();
  if (!processId) return { link: async () => {} };
  if (!deps.temporal) throw misconfigured();
  const { taskQueue } = Context.current().info;
  return {
    link: async (resource) => {
      await linkProcess(deps, resource, processId, () => taskQueue);
    },
  };
}

/** One channel's senders on the platform, as a create by display name reads and makes them. */
interface SendersByName<S, I> {
  listAll(query: { pageSize: number }): AsyncIterable<S>;
  create(input: I): Promise<S>;
}

/**
 * A sender created by its display name (or found by it: a retried create finds what its first attempt made), linked
 * to the process running the activity before it returns, since the platform tells of a new sender as it answers.
 */
export async function createLinkedSender<S extends { id: string; displayName?: string }, I extends { displayName: string }>(
  deps: LinkDeps,
  channel: 'CHATB' | 'RCS',
  senders: SendersByName<S, I>,
  input: I,
): Promise<S & { created: boolean }> {
  const linker = processLinker(deps);
  const sender = await findOrCreate(
    () => findFirst(senders.listAll({ pageSize: LOOKUP_PAGE_SIZE }), (s) => s.displayName === input.displayName),
    () => senders.create(input),
  );
  await linker.link({ channel, resourceType: 'SENDER', resourceId: sender.id });
  return sender;
}

/** The workflow ID of the process running the current activity; undefined outside a workflow's activity. */
export function activityProcessId(): string | undefined {
  return asyncLocalStorage.getStore()?.info.workflowExecution?.workflowId;
}

const misconfigured = () =>
  ApplicationFailure.nonRetryable('this worker was built without a Temporal client (createActivities deps.temporal)', 'WorkerMisconfigured');

/** `taskQueue`: where an inbox started here runs (the process's), asked only without the store. */
async function linkProcess(deps: LinkDeps, resource: ResourceRef, processId: string, taskQueue: () => string): Promise<LinkResourceResult> {
  const { temporal, links } = deps;
  if (!temporal) throw misconfigured();
  const inboxId = workflowIds.resourceInbox(resource.channel, resource.resourceType, resource.resourceId);
  if (!links) {
    // No store (a worker without RELAYFLOW_DATABASE_URL, as its API): the inbox stays the resource's route, so the
    // process attaches to it, starting it if need be, and the inbox forwards every event it gets from then on.
    await temporal.workflow.signalWithStart<ResourceInboxWorkflow, [{ processId: string }]>('resourceInbox', {
      workflowId: inboxId,
      // The inbox runs where its processes run.
      taskQueue: taskQueue(),
      args: [{ resource, ...(deps.inboxIdleMs ? { idleMs: deps.inboxIdleMs } : {}) }],
      signal: attachSignal,
      signalArgs: [{ processId }],
    });
    return { linked: false, inbox: 'attached' };
  }
  await links.link(inboxId, processId);
  try {
    await temporal.workflow.getHandle(inboxId).signal(attachSignal, { processId, linked: true });
    return { linked: true, inbox: 'attached' };
  } catch (err) {
    // No webhook came before the link (or its inbox has ended): nothing to forward.
    if (err instanceof WorkflowNotFoundError) return { linked: true, inbox: 'none' };
    throw err;
  }
}
