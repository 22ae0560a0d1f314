// Provisioning webhooks (`/v1/projects/{projectId}/webhooks`): at most 15 per project, target unique.
import { seg, type ProvisioningTransport } from './transport.js';
import type { CreateWebhookRequest, ProvisioningTrigger, UpdateWebhookRequest, Webhook } from '../../common/wire/provisioning.js';
import { PROVISIONING_TRIGGERS } from './types.js';

export interface EnsureWebhookOptions {
  /**
   * A rotation is under way (a previous secret is still accepted): the platform may hold either secret and never
   * shows it, so the webhook is given `secret` even when its triggers are right.
   */
  rotating?: boolean;
}

export interface EnsuredWebhook {
  id: string;
  created: boolean;
  /** What an update of the existing webhook set (none: left as it was). */
  updated: Array<'secret' | 'triggers'>;
}

const sameSet = (a: readonly string[], b: readonly string[]) => new Set(a).size === new Set(b).size && b.every((x) => a.includes(x));

export class ProvisioningWebhooksClient {
  readonly #t: ProvisioningTransport;

  constructor(transport: ProvisioningTransport) {
    this.#t = transport;
  }

  /** 400 invalid_input beyond 15 webhooks; 409 conflict when the target is taken. */
  create(request: CreateWebhookRequest): Promise<Webhook> {
    return this.#t.call<Webhook>('POST', 'webhooks', { json: request });
  }

  /** Changes the fields given; 404 not_found for an unknown webhook, 409 conflict when a new target is taken. */
  update(webhookId: string, request: UpdateWebhookRequest): Promise<Webhook> {
    return this.#t.call<Webhook>('PATCH', `webhooks/${seg(webhookId)}`, { json: request });
  }

  /** All webhooks of the project (following nextPageToken should the platform ever page them). */
  async list(): Promise<Webhook[]> {
    const all: Webhook[] = [];
    for await (const w of this.#t.all<'webhooks', Webhook>('webhooks', 'webhooks')) all.push(w);
    return all;
  }

  /**
   * Subscribes `target` to `triggers` (every provisioning trigger by default), signed with `secret`: creates the
   * webhook when no webhook has that target, updates one whose triggers differ (its secret with them), and during a
   * rotation (`rotating`) gives it the secret; otherwise leaves it as it is. The platform never shows a secret, so
   * outside a rotation an existing webhook is taken to hold the one it was created or last rotated with. Safe to
   * repeat (at every worker start) and to run concurrently: the target is unique per project and an update sets
   * the same values. `created: false` also when the webhook is found only after a failed create (whose it is is
   * then unknown); it is then brought up to date like any existing one.
   */
  async ensure(
    target: string,
    secret: string,
    triggers: readonly ProvisioningTrigger[] = PROVISIONING_TRIGGERS,
    options: EnsureWebhookOptions = {},
  ): Promise<EnsuredWebhook> {
    const existing = (await this.list()).find((w) => w.target === target);
    if (existing) return this.#bringUpToDate(existing, secret, triggers, options.rotating ?? false);
    try {
      const created = await this.create({ target, secret, triggers: [...triggers] });
      return { id: created.id, created: true, updated: [] };
    } catch (err) {
      // Another worker created it between our list and create (409 target taken), or our create landed
      // and its answer was lost: either way the webhook is there to read.
      const raced = (await this.list()).find((w) => w.target === target);
      if (raced) return this.#bringUpToDate(raced, secret, triggers, options.rotating ?? false);
      throw err;
    }
  }

  async #bringUpToDate(webhook: Webhook, secret: string, triggers: readonly ProvisioningTrigger[], rotating: boolean): Promise<EnsuredWebhook> {
    const triggersDiffer = !sameSet(webhook.triggers, triggers);
    if (!triggersDiffer && !rotating) return { id: webhook.id, created: false, updated: [] };
    // The secret goes with every update: a webhook whose triggers drifted may have been set up by other hands.
    await this.update(webhook.id, triggersDiffer ? { secret, triggers: [...triggers] } : { secret });
    return { id: webhook.id, created: false, updated: triggersDiffer ? ['secret', 'triggers'] : ['secret'] };
  }

  async delete(webhookId: string): Promise<void> {
    await this.#t.call<unknown>('DELETE', `webhooks/${seg(webhookId)}`);
  }
}
