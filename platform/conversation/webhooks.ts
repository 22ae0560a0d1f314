// An app's delivery webhook, made idempotent: read first, create only when no webhook has the target, replace
// one whose secret or triggers differ. A create whose answer was lost is found by the next read.
import type { Region } from '../../common/config.js';
import type { HttpMethod, QueryValue } from '../http.js';
import type { WireWebhook } from '../../common/wire/conversation.js';

type Call = <T>(region: Region, method: HttpMethod, path: string, o?: { json?: unknown; query?: Record<string, QueryValue> }) => Promise<T>;

export class ConversationWebhooks {
  constructor(private readonly call: Call) {}

  async list(region: Region, appId: string): Promise<WireWebhook[]> {
    const body = await this.call<{ webhooks?: WireWebhook[] }>(region, 'GET', `apps/${encodeURIComponent(appId)}/webhooks`);
    return body.webhooks ?? [];
  }

  async ensure(region: Region, appId: string, target: string, secret: string, triggers: string[]): Promise<WireWebhook> {
    const existing = (await this.list(region, appId)).find((w) => w.target === target);
    const same = existing && existing.secret === secret && triggers.every((t) => existing.triggers.includes(t));
    if (existing && same) return existing;
    if (existing) await this.call(region, 'DELETE', `webhooks/${encodeURIComponent(existing.id)}`);
    try {
      return await this.call<WireWebhook>(region, 'POST', 'webhooks', { json: { app_id: appId, target, target_type: 'HTTP', secret, triggers } });
    } catch (err) {
      // A create that happened but whose answer was lost (or a concurrent worker's) shows up here.
      const again = (await this.list(region, appId)).find((w) => w.target === target && w.secret === secret);
      if (again) return again;
      throw err;
    }
  }
}
