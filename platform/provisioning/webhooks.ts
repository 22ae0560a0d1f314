// Provisioning webhooks (`/v1/projects/{projectId}/webhooks`): at most 15 per project, target unique.
import { seg, type ProvisioningTransport } from './transport.js';
import type { ProvisioningTrigger } from './types.js';

export interface CreateWebhookRequest {
  target: string;
  /** At least 8 characters; the HMAC key of the deliveries. */
  secret: string;
  triggers: ProvisioningTrigger[];
}

/** The platform never returns the secret. */
export interface Webhook {
  id: string;
  target: string;
  triggers: ProvisioningTrigger[];
}

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

  async delete(webhookId: string): Promise<void> {
    await this.#t.call<unknown>('DELETE', `webhooks/${seg(webhookId)}`);
  }
}
