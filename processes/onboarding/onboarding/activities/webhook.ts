// The onboarding's webhook step: subscribe the customer's target to the provisioning triggers unless a webhook
// with that target exists (the platform keeps targets unique per project).
import type { EnsureWebhookResult, WebhookPlan } from '../contract.js';
import type { ProvisioningClient } from '../../../../platform/provisioning/client.js';
import type { ProvisioningTrigger } from '../../../../common/wire/provisioning.js';

export function createWebhookActivity(provisioning: ProvisioningClient) {
  return {
    /**
     * Safe to repeat: a webhook found by its target counts as existing (`created: false`), so compensation leaves
     * it alone; so does one found only after a failed create (when in doubt whose it is, it is not deleted on
     * cancel). The platform client's `ensure` does the look-up, the create and the second look-up.
     */
    async ensureWebhook(plan: WebhookPlan): Promise<EnsureWebhookResult> {
      // Unknown trigger names are the platform's to refuse (400 invalid_input: a non-retryable failure).
      const webhooks = provisioning.forProject(plan.projectId).webhooks;
      const { id, created } = await webhooks.ensure(plan.target, plan.secret, plan.triggers as ProvisioningTrigger[] | undefined);
      return { webhookId: id, created };
    },
  };
}
