// Provisioning resources of one sandbox instance, per project in creation order; save() and load() carry them
// across a restart of a persistent sandbox.
import type { Bundle, ChataSender, ChatbSender, RcsSender, Template, Webhook } from './model.js';

export interface Entry<T> {
  projectId: string;
  item: T;
}

export class Collection<T extends { id: string }> {
  private readonly byId = new Map<string, Entry<T>>();
  private readonly byProject = new Map<string, T[]>();

  add(projectId: string, item: T): T {
    this.byId.set(item.id, { projectId, item });
    const list = this.byProject.get(projectId) ?? [];
    list.push(item);
    this.byProject.set(projectId, list);
    return item;
  }

  get(projectId: string, id: string): T | undefined {
    const e = this.byId.get(id);
    return e && e.projectId === projectId ? e.item : undefined;
  }

  /** Any project's; for the control routes, which name resources by ID only. */
  find(id: string): Entry<T> | undefined {
    return this.byId.get(id);
  }

  list(projectId: string): T[] {
    return this.byProject.get(projectId) ?? [];
  }

  /** Every item with its project, in creation order. */
  entries(): Entry<T>[] {
    return [...this.byId.values()];
  }

  /** Re-adds saved entries in creation order, rebuilding both indexes. */
  restore(entries: readonly Entry<T>[]): void {
    this.clear();
    for (const e of entries) this.add(e.projectId, e.item);
  }

  remove(projectId: string, id: string): boolean {
    if (!this.get(projectId, id)) return false;
    this.byId.delete(id);
    this.byProject.set(
      projectId,
      this.list(projectId).filter((i) => i.id !== id),
    );
    return true;
  }

  clear(): void {
    this.byId.clear();
    this.byProject.clear();
  }
}

export class ProvisioningStore {
  readonly webhooks = new Collection<Webhook>();
  readonly chataTemplates = new Collection<Template>();
  readonly chatbTemplates = new Collection<Template>();
  readonly rcsSenders = new Collection<RcsSender>();
  readonly chataSenders = new Collection<ChataSender>();
  readonly chatbSenders = new Collection<ChatbSender>();
  readonly bundles = new Collection<Bundle>();

  clear(): void {
    for (const c of Object.values(this.collections())) c.clear();
  }

  save(): Record<string, Entry<unknown>[]> {
    return Object.fromEntries(Object.entries(this.collections()).map(([name, c]) => [name, c.entries()]));
  }

  /** A collection missing from the saved state stays empty. */
  load(saved: Record<string, Entry<never>[]>): void {
    for (const [name, c] of Object.entries(this.collections())) c.restore(saved[name] ?? []);
  }

  private collections(): Record<string, Collection<{ id: string }>> {
    const { webhooks, chataTemplates, chatbTemplates, rcsSenders, chataSenders, chatbSenders, bundles } = this;
    return { webhooks, chataTemplates, chatbTemplates, rcsSenders, chataSenders, chatbSenders, bundles };
  }
}

export const nowIso = () => new Date().toISOString();
