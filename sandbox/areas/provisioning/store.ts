// Provisioning resources of one sandbox instance, per project in creation order; persist() and restore() carry them
// across a restart of a persistent sandbox.
import { ScopedTable, type Scoped } from '../../core/table.js';
import type { Bundle, ChataAccount, ChataSender, ChatbSender, RcsSender, Template, Webhook } from './model.js';

/** What persist and restore need of each table, whatever it holds. */
interface SavedTable {
  reset(): void;
  entries(): Scoped<unknown>[];
  restore(entries: readonly Scoped<never>[]): void;
}

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
    for (const c of Object.values(this.collections())) c.reset();
  }

  persist(): Record<string, Scoped<unknown>[]> {
    return Object.fromEntries(Object.entries(this.collections()).map(([name, c]) => [name, c.entries()]));
  }

  /** A collection missing from the saved state stays empty. */
  restore(saved: Record<string, Scoped<never>[]>): void {
    for (const [name, c] of Object.entries(this.collections())) c.restore(saved[name] ?? []);
  }

  private collections(): Record<string, SavedTable> {
    const { webhooks, chataTemplates, chatbTemplates, rcsSenders, chataSenders, chatbSenders, bundles, chataAccounts } = this;
    return { webhooks, chataTemplates, chatbTemplates, rcsSenders, chataSenders, chatbSenders, bundles, chataAccounts };
  }
}

export const nowIso = () => new Date().toISOString();
