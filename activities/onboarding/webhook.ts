// The onboarding's webhook step: subscribe the customer's target to the provisioning triggers unless a webhook
// with that target exists (the platform keeps targets unique per project).
import type { EnsureWebhookResult, WebhookPlan } from '../../contracts/onboarding.js';
import { PlatformConflictError, PlatformUnavailableError } from '../../platform/errors.js';
import type { ProvisioningClient } from '../../platform/provisioning/client.js';
import { PROVISIONING_TRIGGERS, type ProvisioningTrigger } from '../../platform/provisioning/types.js';

export function createWebhookActivity(provisioning: ProvisioningClient) {
  const { webhooks } = provisioning;
  const byTarget = async (target: string) => (await webhooks.list()).find((w) => w.target === target);

  return {
    /**
     * Safe to repeat: a webhook found by its target counts as existing (`created: false`), so compensation leaves
     * it alone. After a 409 (made meanwhile) or no answer (our create may have landed) the list is read again; a
     * webhook found then is also `created: false`: when in doubt whose it is, it is not deleted on cancel.
     */
    async ensureWebhook(plan: WebhookPlan): Promise<EnsureWebhookResult> {
      const existing = await byTarget(plan.target);
      if (existing) return { webhookId: existing.id, created: false };
      // Unknown trigger names are the platform's to refuse (400 invalid_input: a non-retryable failure).
      const triggers = (plan.triggers ?? PROVISIONING_TRIGGERS) as readonly ProvisioningTrigger[];
      try {
        const made = await webhooks.create({ target: plan.target, secret: plan.secret, triggers: [...triggers] });
        return { webhookId: made.id, created: true };
      } catch (err) {
        if (!(err instanceof PlatformConflictError || err instanceof PlatformUnavailableError)) throw err;
        const raced = await byTarget(plan.target);
        if (raced) return { webhookId: raced.id, created: false };
        throw err;
      }
    },
  };
}
