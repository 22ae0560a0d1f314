// The activity that talks to relayflow's store and Temporal rather than the platform: a provisioning process links
// itself to the resource it created or adopted (store/resource-links.ts), so the webhook intake signals it directly,
// then asks the resource's inbox, if a webhook started one before the link, to forward what it holds. Link first,
// inbox second, while the intake puts an event in the inbox first and reads the link second: whatever the
// interleaving, one of the two sees the other, so the process gets the event (maybe twice: it drops duplicates).
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { workflowIds } from '../../contracts/ids.js';
import { attachSignal, type LinkResourceInput, type LinkResourceResult, type ResourceInboxWorkflow } from '../../contracts/provisioning.js';
import type { ResourceLinkStore } from '../../store/resource-links.js';

export function createResourceLinkActivities(deps: { temporal?: Client | undefined; links?: ResourceLinkStore | undefined; inboxIdleMs?: number | undefined }) {
  return {
    /** Idempotent: linking again bumps the link's generation; attaching again makes the inbox forward again (dropped as duplicates). */
    async linkResource({ resource, processId }: LinkResourceInput): Promise<LinkResourceResult> {
      const { temporal, links } = deps;
      if (!temporal)
        throw ApplicationFailure.nonRetryable('this worker was built without a Temporal client (createActivities deps.temporal)', 'WorkerMisconfigured');
      const inboxId = workflowIds.resourceInbox(resource.channel, resource.resourceType, resource.resourceId);
      if (!links) {
        // No store (a worker without RELAYFLOW_DATABASE_URL, as its API): the inbox stays the resource's route, so the
        // process attaches to it, starting it if need be, and the inbox forwards every event it gets from then on.
        await temporal.workflow.signalWithStart<ResourceInboxWorkflow, [{ processId: string }]>('resourceInbox', {
          workflowId: inboxId,
          // The inbox runs where its processes run.
          taskQueue: Context.current().info.taskQueue,
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
    },
  };
}
