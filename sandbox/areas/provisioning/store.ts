// Provisioning resources of one sandbox instance, per project in creation order; a persistent sandbox keeps every
// table across a restart (`kept`).
import type { Kept } from '../../core/kept.js';
import { ScopedTable } from '../../core/table.js';
import type { Bundle, ChataAccount, ChataSender, ChatbSender, RcsSender, Template, Webhook } from './model.js';

export class ProvisioningStore {
  readonly webhooks = new ScopedTable<Webhook>();
  readonly chataTemplates = new ScopedTable<Template>();
  readonly chatbTemplates = new ScopedTable<Template>();
  readonly rcsSenders = new ScopedTable<RcsSender>();
  readonly chataSenders = new ScopedTable<ChataSender>();
  readonly chatbSenders = new ScopedTable<ChatbSender>();
  readonly bundles = new ScopedTable<Bundle>();
  /** One per project, made on first read. */
  readonly chataAccounts = new ScopedTable<ChataAccount>();

  reset(): void {
    for (const c of Object.values(this.kept)) c.reset();
  }

  /** Every table, by the name it is saved under. */
  get kept(): Record<string, Kept & { reset(): void }> {
    const { webhooks, chataTemplates, chatbTemplates, rcsSenders, chataSenders, chatbSenders, bundles, chataAccounts } = this;
    return { webhooks, chataTemplates, chatbTemplates, rcsSenders, chataSenders, chatbSenders, bundles, chataAccounts };
  }
}

export const nowIso = () => new Date().toISOString();
