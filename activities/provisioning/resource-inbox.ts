// The one activity that talks to Temporal rather than the platform: a provisioning process attaches
// itself to its resource's inbox (started here when no webhook has started it yet).
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { workflowIds } from '../../contracts/ids.js';
import { attachSignal, type AttachToInboxInput, type ResourceInboxWorkflow } from '../../contracts/provisioning.js';

export function createResourceInboxActivities(deps: { temporal?: Client | undefined; inboxIdleMs?: number | undefined }) {
  return {
    /** Idempotent: attaching twice only makes the inbox forward its events again (the process drops duplicates). */
    async attachToInbox({ resource, processId }: AttachToInboxInput): Promise<{ inboxId: string }> {
      if (!deps.temporal)
        throw ApplicationFailure.nonRetryable('this worker was built without a Temporal client (createActivities deps.temporal)', 'WorkerMisconfigured');
      const inboxId = workflowIds.resourceInbox(resource.channel, resource.resourceType, resource.resourceId);
      await deps.temporal.workflow.signalWithStart<ResourceInboxWorkflow, [{ processId: string }]>('resourceInbox', {
        workflowId: inboxId,
        // The inbox runs where its processes run.
        taskQueue: Context.current().info.taskQueue,
        args: [{ resource, ...(deps.inboxIdleMs ? { idleMs: deps.inboxIdleMs } : {}) }],
        signal: attachSignal,
        signalArgs: [{ processId }],
      });
      return { inboxId };
    },
  };
}
