// Provisioning interface (area G, v1): one client per project, authenticated with the project's key
// (OAuth 2.0 bearer from the shared token source), exposing one sub-client per resource family.
// Contract: docs/provisioning-wire.md.
import type { PlatformHttp } from '../http.js';
import { OAuthBearerAuth, type OAuthTokenSource } from '../auth/oauth.js';
import { ProvisioningTransport } from './transport.js';
import { ProvisioningTemplatesClient } from './templates.js';
import { ProvisioningRcsClient } from './rcs-senders.js';
import { ProvisioningChataSendersClient, ProvisioningChatbSendersClient } from './chat-senders.js';
import { ProvisioningWebhooksClient } from './webhooks.js';
import { ProvisioningBundlesClient } from './bundles.js';
import type { TemplateChannel } from '../../common/wire/provisioning.js';

export interface ProvisioningClientOptions {
  http: PlatformHttp;
  /** urls.provisioning */
  baseUrl: string;
  /** The project every path is scoped to (credentials.projectId); the key must own it (403 otherwise). */
  projectId: string;
  tokens: OAuthTokenSource;
}

export class ProvisioningClient {
  readonly projectId: string;
  readonly webhooks: ProvisioningWebhooksClient;
  readonly chataTemplates: ProvisioningTemplatesClient;
  readonly chatbTemplates: ProvisioningTemplatesClient;
  readonly rcs: ProvisioningRcsClient;
  readonly chataSenders: ProvisioningChataSendersClient;
  readonly chatbSenders: ProvisioningChatbSendersClient;
  readonly bundles: ProvisioningBundlesClient;
  readonly #opts: ProvisioningClientOptions;
  readonly #others = new Map<string, ProvisioningClient>();

  constructor(opts: ProvisioningClientOptions) {
    this.#opts = opts;
    const transport = new ProvisioningTransport({
      http: opts.http,
      baseUrl: opts.baseUrl,
      projectId: opts.projectId,
      auth: new OAuthBearerAuth(opts.tokens),
    });
    this.projectId = opts.projectId;
    this.webhooks = new ProvisioningWebhooksClient(transport);
    this.chataTemplates = new ProvisioningTemplatesClient(transport, 'CHATA');
    this.chatbTemplates = new ProvisioningTemplatesClient(transport, 'CHATB');
    this.rcs = new ProvisioningRcsClient(transport);
    this.chataSenders = new ProvisioningChataSendersClient(transport);
    this.chatbSenders = new ProvisioningChatbSendersClient(transport);
    this.bundles = new ProvisioningBundlesClient(transport);
  }

  /**
   * The same client on another project: a customer's subproject, used with the parent project's key (spec part E).
   * Undefined or this client's own project is this client.
   */
  forProject(projectId: string | undefined): ProvisioningClient {
    if (projectId === undefined || projectId === this.projectId) return this;
    let other = this.#others.get(projectId);
    if (!other) this.#others.set(projectId, (other = new ProvisioningClient({ ...this.#opts, projectId })));
    return other;
  }

  /** The templates sub-client of a channel. */
  templates(channel: TemplateChannel): ProvisioningTemplatesClient {
    return channel === 'CHATA' ? this.chataTemplates : this.chatbTemplates;
  }
}

export * from './types.js';
export * from './errors.js';
export * from './templates.js';
export * from './rcs-senders.js';
export * from './chat-senders.js';
export * from './webhooks.js';
export * from './bundles.js';
