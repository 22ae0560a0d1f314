// The callback relay's step (processes/senderid/senderid-registration/workflow/callback-relay.ts): whose registration a callback names, read
// from the platform (the key relayflow tagged it with at create), then the hints signalled to that process and the
// link recorded, so the next callbacks go to it directly; a registration relayflow did not create is adopted by
// signal-with-start under `reg-<registrationId>` (that process links itself). A failed read is a retryable failure
// (Temporal retries the activity); a retry may signal a hint twice, which the process drops by eventId.
// Beside it, the link a registration process records once it created or adopted its registration.
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { senderIdAdoptedKey } from '../../../../contracts/ids.js';
import { workflowIds } from '../../../kinds.js';
import type { RelayCallbacksInput, RelayCallbacksResult } from '../activity-contract.js';
import { senderIdCallbackRelayId, senderIdCallbackSignal, type LinkRegistrationInput, type SenderIdRegistrationInput } from '../contract.js';
import { PlatformNotFoundError } from '../../../../platform/errors.js';
import type { SenderIdClient } from '../../../../platform/senderid/client.js';
import type { ResourceLinkStore } from '../../../../store/resource-links.js';

const KEY_TAG = /^relayflow-key:(.+)$/;

export function createCallbackRelayActivities(deps: { senderid: SenderIdClient; temporal?: Client | undefined; links?: ResourceLinkStore | undefined }) {
  return {
    /** Idempotent: linking again renews the link. */
    async linkSenderIdRegistration({ projectId, registrationId, processId }: LinkRegistrationInput): Promise<{ linked: boolean }> {
      if (!deps.links) return { linked: false };
      await deps.links.link(senderIdCallbackRelayId(projectId, registrationId), processId);
      return { linked: true };
    },

    async relaySenderIdCallbacks({ relay, hints }: RelayCallbacksInput): Promise<RelayCallbacksResult> {
      const temporal = deps.temporal;
      if (!temporal)
        throw ApplicationFailure.nonRetryable('this worker was built without a Temporal client (createActivities deps.temporal)', 'WorkerMisconfigured');
      let key: string | undefined;
      try {
        const registration = await deps.senderid.getRegistration(relay.registrationId);
        key = registration.tags?.map((t) => KEY_TAG.exec(t)?.[1]).find((k) => k !== undefined);
      } catch (err) {
        if (err instanceof PlatformNotFoundError) return { outcome: 'registration-gone' };
        throw err;
      }

      if (key) {
        const processId = workflowIds['senderid-registration'](relay.projectId, key);
        const handle = temporal.workflow.getHandle(processId);
        try {
          for (const hint of hints) await handle.signal(senderIdCallbackSignal, hint);
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return { outcome: 'process-ended', processId };
          throw err;
        }
        // A registration its process had not linked (the callback came first, or a worker without the store linked nothing).
        await deps.links?.link(senderIdCallbackRelayId(relay.projectId, relay.registrationId), processId);
        return { outcome: 'signalled', processId };
      }

      const adoptedKey = senderIdAdoptedKey(relay.registrationId);
      const processId = workflowIds['senderid-registration'](relay.projectId, adoptedKey);
      const input: SenderIdRegistrationInput = {
        projectId: relay.projectId,
        key: adoptedKey,
        adopt: { registrationId: relay.registrationId },
        pollIntervalMs: relay.pollIntervalMs,
        ...(relay.overdueGraceMs !== undefined ? { overdueGraceMs: relay.overdueGraceMs } : {}),
      };
      // One signal-with-start per hint: each starts the process if it is not running (it may end between two).
      for (const hint of hints)
        await temporal.workflow.signalWithStart('senderIdRegistration', {
          workflowId: processId,
          // The process runs where its relay runs.
          taskQueue: Context.current().info.taskQueue,
          args: [input],
          signal: senderIdCallbackSignal,
          signalArgs: [hint],
        });
      return { outcome: 'adopted', processId };
    },
  };
}
