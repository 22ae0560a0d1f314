// Provisioning webhooks (`/v1/projects/{projectId}/webhooks`): at most 15 per project, target unique.
import { seg, type ProvisioningTransport } from './transport.js';
import type { CreateWebhookRequest, ProvisioningTrigger, Webhook } from '../../common/wire/provisioning.js';
import { PROVISIONING_TRIGGERS } from './types.js';

export class ProvisioningWebhooksClient {
  readonly #t: ProvisioningTransport;

  constructor(transport: ProvisioningTransport) {
    this.#t = transport;
  }

  /** 400 invalid_input beyond 15 webhooks; 409 conflict when the target is taken. */
  create(request: CreateWebhookRequest): Promise<Webhook> {
    return this.#t.call<Webhook>('POST', 'webhooks', { json: request });
  }

  /** All webhooks of the project (following nextPageToken should the platform ever page them). */
  async list(): Promise<Webhook[]> {
    const all: Webhook[] = [];
    for await (const w of this.#t.all<'webhooks', Webhook>('webhooks', 'webhooks')) all.push(w);
    return all;
  }

  /**
   * Subscribes `target` to `triggers` (every provisioning trigger by default) unless a webhook with that target
   * exists (the target is unique per project, so this is safe to repeat: at every worker start, and
   * concurrently). `created: false` also when the webhook is found only after a failed create: whose it is
   * is then unknown.
   */
  async ensure(target: string, secret: string, triggers: readonly ProvisioningTrigger[] = PROVISIONING_TRIGGERS): Promise<{ id: string; created: boolean }> {
    const existing = (await this.list()).find((w) => w.target === target);
    if (existing) return { id: existing.id, created: false };
    try {
      const created = await this.create({ target, secret, triggers: [...triggers] });
      return { id: created.id, created: true };
    } catch (err) {
      // Another worker created it between our list and create (409 target taken), or our create landed
      // and its answer was lost: either way the webhook is there to read.
      const raced = (await this.list()).find((w) => w.target === target);
      if (raced) return { id: raced.id, created: false };
      throw err;
    }
  }

  async delete(webhookId: string): Promise<void> {
    await this.#t.call<unknown>('DELETE', `webhooks/${seg(webhookId)}`);
  }
}
