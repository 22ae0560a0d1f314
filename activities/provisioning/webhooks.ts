// Activities of provisioning webhooks: ensure one exists for a target (idempotent by target), and remove it.
import type { ProvisioningClient } from '../../platform/provisioning/client.js';
import { PlatformNotFoundError } from '../../platform/errors.js';
import type { CreateWebhookRequest, Webhook } from '../../platform/provisioning/webhooks.js';
import { withFailureMappingAll } from '../shared/failures.js';
import { findOrCreate } from './lookup.js';

/** `target` is the idempotency key (unique per project on the platform too). */
export type EnsureWebhookInput = CreateWebhookRequest;
/** The webhook with that target; `created: false` when it already existed (its triggers are left as they are). */
export type EnsureWebhookResult = Webhook & { created: boolean };

export interface DeleteWebhookInput {
  webhookId: string;
}

export interface DeleteWebhookResult {
  webhookId: string;
  /** false when it was already gone (404). */
  deleted: boolean;
}

export function createProvisioningWebhookActivities(clients: { provisioning: ProvisioningClient }) {
  const { webhooks } = clients.provisioning;
  return withFailureMappingAll({
    /** The 15-per-project limit (400 invalid_input) propagates as a non-retryable failure. */
    async ensureWebhook(input: EnsureWebhookInput): Promise<EnsureWebhookResult> {
      return findOrCreate(
        async () => (await webhooks.list()).find((w) => w.target === input.target),
        () => webhooks.create({ target: input.target, secret: input.secret, triggers: input.triggers }),
      );
    },

    async deleteWebhook(input: DeleteWebhookInput): Promise<DeleteWebhookResult> {
      try {
        await webhooks.delete(input.webhookId);
        return { webhookId: input.webhookId, deleted: true };
      } catch (err) {
        if (err instanceof PlatformNotFoundError) return { webhookId: input.webhookId, deleted: false };
        throw err;
      }
    },
  });
}
