// Conversation messaging (area D): apps, message send, sent-message look-up, webhooks. One client per project,
// OAuth bearer from the shared token source, a base address per region (an app answers only on its own).
import { OAuthBearerAuth, type OAuthTokenSource } from '../auth/oauth.js';
import type { AuthStrategy } from '../auth/strategy.js';
import type { Region } from '../../common/config.js';
import type { HttpMethod, PlatformHttp, QueryValue } from '../http.js';
import type { WireMessage } from '../../common/wire/conversation.js';
import type { ConversationApp, SendMessageRequest, SentMessage } from './types.js';
import { ConversationWebhooks } from './webhooks.js';

export interface ConversationClientOptions {
  http: PlatformHttp;
  urls: Record<Region, string>;
  projectId: string;
  tokens: OAuthTokenSource;
}

const seg = (v: string) => encodeURIComponent(v);
/** How many pages of an identity's messages a look-up reads before saying "not there". */
const LOOKUP_PAGES = 5;

export class ConversationClient {
  readonly webhooks: ConversationWebhooks;
  readonly #http: PlatformHttp;
  readonly #auth: AuthStrategy;
  readonly #urls: Record<Region, string>;
  readonly #projectId: string;
  readonly #opts: ConversationClientOptions;
  readonly #others = new Map<string, ConversationClient>();

  constructor(opts: ConversationClientOptions) {
    this.#opts = opts;
    this.#http = opts.http;
    this.#auth = new OAuthBearerAuth(opts.tokens);
    this.#urls = opts.urls;
    this.#projectId = opts.projectId;
    this.webhooks = new ConversationWebhooks((region, method, path, o) => this.call(region, method, path, o));
  }

  /** The same client on another project (a customer's subproject and its bundle app); undefined is this one's. */
  forProject(projectId: string | undefined): ConversationClient {
    if (projectId === undefined || projectId === this.#projectId) return this;
    let other = this.#others.get(projectId);
    if (!other) this.#others.set(projectId, (other = new ConversationClient({ ...this.#opts, projectId })));
    return other;
  }

  async getApp(region: Region, appId: string): Promise<ConversationApp> {
    const a = await this.call<{ id: string; display_name?: string; region?: string; rate_limits?: { outbound?: number } }>(region, 'GET', `apps/${seg(appId)}`);
    return { id: a.id, displayName: a.display_name ?? '', region: a.region ?? region.toUpperCase(), outboundRate: a.rate_limits?.outbound ?? 20 };
  }

  async sendMessage(region: Region, r: SendMessageRequest): Promise<SentMessage> {
    const message = r.template
      ? // A channel-specific template: keyed by the channel, named by template_id (its name), language_code underscored.
        {
          template_message: {
            channel_template: { [r.channel]: { template_id: r.template.name, language_code: r.template.language, parameters: r.template.parameters } },
          },
        }
      : r.mediaUrl !== undefined
        ? { media_message: { url: r.mediaUrl } }
        : { text_message: { text: r.text ?? '' } };
    const body = await this.call<{ message_id: string; accepted_time: string }>(region, 'POST', 'messages:send', {
      json: {
        app_id: r.appId,
        recipient: { identified_by: { channel_identities: [{ channel: r.channel, identity: r.identity }] } },
        message,
        ...(r.metadata !== undefined ? { message_metadata: r.metadata } : {}),
        ...(r.correlationId !== undefined ? { correlation_id: r.correlationId } : {}),
      },
    });
    return { messageId: body.message_id, acceptedTime: body.accepted_time };
  }

  /** The ID of the message sent to this identity with this metadata, if the platform has it (newest first, a few pages). */
  async findSentByMetadata(region: Region, q: { appId: string; channel: string; identity: string; metadata: string }): Promise<string | undefined> {
    let pageToken: string | undefined;
    for (let page = 0; page < LOOKUP_PAGES; page++) {
      const body = await this.call<{ messages?: WireMessage[]; next_page_token?: string }>(region, 'GET', 'messages', {
        query: { app_id: q.appId, channel_identity: q.identity, page_size: 100, page_token: pageToken },
      });
      const hit = (body.messages ?? []).find((m) => m.metadata === q.metadata);
      if (hit) return hit.id;
      pageToken = body.next_page_token || undefined;
      if (!pageToken) return undefined;
    }
    return undefined;
  }

  async getMessage(region: Region, messageId: string): Promise<WireMessage> {
    return this.call<WireMessage>(region, 'GET', `messages/${seg(messageId)}`);
  }

  private async call<T>(region: Region, method: HttpMethod, path: string, o: { json?: unknown; query?: Record<string, QueryValue> } = {}): Promise<T> {
    const res = await this.#http.request<T>({
      area: 'conversation',
      method,
      url: `${this.#urls[region].replace(/\/+$/, '')}/v1/projects/${seg(this.#projectId)}/${path}`,
      auth: this.#auth,
      ...(o.json !== undefined ? { json: o.json } : {}),
      ...(o.query ? { query: o.query } : {}),
    });
    return res.body;
  }
}
