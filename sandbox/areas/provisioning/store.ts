// In-memory provisioning resources of one sandbox instance, per project in creation order.
import type { Bundle, ChataSender, ChatbSender, RcsSender, Template, Webhook } from './model.js';

interface Entry<T> {
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

  remove(projectId: string, id: string): boolean {
    if (!this.get(projectId, id)) return false;
    this.byId.delete(id);
    this.byProject.set(projectId, this.list(projectId).filter((i) => i.id !== id));
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
    for (const c of [this.webhooks, this.chataTemplates, this.chatbTemplates, this.rcsSenders, this.chataSenders, this.chatbSenders, this.bundles]) {
      c.clear();
    }
  }
}

export const nowIso = () => new Date().toISOString();
