// Where a provisioning webhook event goes once the intake has checked it: one signal to each process linked to its
// resource (store/resource-links.ts), by workflow ID so it reaches the current run. A resource with no linked process
// still running has the event kept by its inbox (signal-with-start), which forwards it to the process that links
// itself later. The process links first and looks for the inbox second; here the inbox takes the event first and
// the link is read again second: whatever the interleaving, one side sees the other, so the process gets the event
// (perhaps twice: processes drop a repeated eventId).
import type { FastifyBaseLogger } from 'fastify';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { workflowIds } from '../../processes/kinds.js';
import { provisioningEventSignal, resourceOf, type ProvisioningEvent, type ResourceInboxWorkflow } from '../../processes/provisioning/contract.js';
import type { ResourceLink, ResourceLinkStore } from '../../store/resource-links.js';

export interface DeliveryDeps {
  client: Client;
  taskQueue: string;
  /** RELAYFLOW_INBOX_IDLE_MS for the inboxes started here (unset: the inbox's default, 30 days). */
  inboxIdleMs?: number | undefined;
  /** Without the store every event goes to its resource's inbox. */
  links?: ResourceLinkStore | undefined;
  log: Pick<FastifyBaseLogger, 'warn'>;
}

/** Where an event went: the processes it was signalled to, and whether the resource's inbox took it. */
export interface Delivery {
  processes: string[];
  inbox: boolean;
}

/** Throws when Temporal or the store fails (the intake answers 503, the platform retries). */
export async function deliverProvisioningEvent(deps: DeliveryDeps, event: ProvisioningEvent): Promise<Delivery> {
  const { client, links } = deps;
  const inboxId = workflowIds.resourceInbox(event.channel, event.resourceType, event.resourceId);
  const before = links ? await links.owners(inboxId) : [];
  const processes = before.length ? await toProcesses(deps, before, event, inboxId) : [];
  if (processes.length) return { processes, inbox: false };
  await client.workflow.signalWithStart<ResourceInboxWorkflow, [ProvisioningEvent]>('resourceInbox', {
    workflowId: inboxId,
    taskQueue: deps.taskQueue,
    args: [{ resource: resourceOf(event), ...(deps.inboxIdleMs ? { idleMs: deps.inboxIdleMs } : {}) }],
    signal: provisioningEventSignal,
    signalArgs: [event],
  });
  if (!links) return { processes, inbox: true };
  // A process may have linked itself after the look-up above and found no inbox yet. None was reached above, and
  // those found ended were unlinked: what is linked now was linked (or linked again) since.
  const since = await links.owners(inboxId);
  return { processes: since.length ? await toProcesses(deps, since, event, inboxId) : [], inbox: true };
}

/** Signals the event to each linked process; the ones that have ended are unlinked. Returns those it reached. */
async function toProcesses({ client, links, log }: DeliveryDeps, owners: ResourceLink[], event: ProvisioningEvent, resource: string): Promise<string[]> {
  const reached = await Promise.all(
    owners.map(async (link) => {
      try {
        await client.workflow.getHandle(link.processId).signal(provisioningEventSignal, event);
        return link.processId;
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        // Housekeeping only: a link left behind costs a failed signal next time, nothing else.
        await links!.unlink(resource, link).catch((e: unknown) => log.warn({ err: e, resource }, 'a stale resource link was not removed'));
        return undefined;
      }
    }),
  );
  return reached.filter((p): p is string => p !== undefined);
}
