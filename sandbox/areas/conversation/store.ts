// State of the conversation area: apps, contacts, conversations, messages and webhooks (persist() and restore()
// carry them across a restart of a persistent sandbox).
// Messages are kept in id order (monotonic ULIDs) with indexes by app and by identity, so listing
// newest first and paging by "older than this id" stay cheap with tens of thousands of messages.
import { monotonicFactory } from 'ulid';
import { Lists, ScopedTable } from '../../core/table.js';
import type { App, ChannelIdentity, Contact, Message, Webhook } from './model.js';

const identityKey = (projectId: string, c: ChannelIdentity) => `${projectId} ${c.channel} ${c.identity}`;

export interface MessageFilter {
  projectId: string;
  /** Only messages of these apps (those of the region called). */
  appIds: ReadonlySet<string>;
  appId?: string;
  identity?: string;
  /** Only messages older than this id (the page token). */
  before?: string;
  limit: number;
}

export interface SavedConversationStore {
  apps: App[];
  contacts: Contact[];
  /** `${appId} ${contactId}` -> conversation id. */
  conversations: Record<string, string>;
  /** In id order. */
  messages: Message[];
  webhooks: Webhook[];
}

export class ConversationStore {
  /** One factory for every id, so message ids sort in acceptance order. */
  readonly newId = monotonicFactory();
  private readonly apps = new ScopedTable<App>({ scope: (a) => a.projectId });
  private readonly contacts = new ScopedTable<Contact>({ scope: (c) => c.projectId });
  private readonly contactByIdentity = new Map<string, Contact>();
  private readonly conversations = new Map<string, string>();
  private readonly messagesById = new Map<string, Message>();
  private messages: Message[] = [];
  private readonly byApp = new Lists<Message>();
  private readonly byIdentity = new Lists<Message>();
  private readonly webhooks = new ScopedTable<Webhook>({ scope: (w) => w.appId });

  addApp(app: App): App {
    return this.apps.add(app);
  }

  app(id: string): App | undefined {
    return this.apps.find(id)?.item;
  }

  allApps(): App[] {
    return this.apps.all();
  }

  contact(projectId: string, id: string): Contact | undefined {
    return this.contacts.get(projectId, id);
  }

  /** The contact owning any of these identities, else a new one with all of them (spec: made by the first message). */
  contactFor(projectId: string, identities: ChannelIdentity[]): Contact {
    for (const ci of identities) {
      const found = this.contactByIdentity.get(identityKey(projectId, ci));
      if (found) return found;
    }
    return this.addContact({ id: this.newId(), projectId, identities: identities.map((c) => ({ ...c })) });
  }

  private addContact(contact: Contact): Contact {
    this.contacts.add(contact);
    for (const ci of contact.identities) this.contactByIdentity.set(identityKey(contact.projectId, ci), contact);
    return contact;
  }

  /** One conversation per app and contact, made on first use. */
  conversationFor(appId: string, contactId: string): string {
    const key = `${appId} ${contactId}`;
    let id = this.conversations.get(key);
    if (!id) {
      id = this.newId();
      this.conversations.set(key, id);
    }
    return id;
  }

  addMessage(m: Message): void {
    this.messagesById.set(m.id, m);
    this.messages.push(m);
    this.byApp.add(m.appId, m);
    this.byIdentity.add(m.identity, m);
  }

  message(projectId: string, id: string): Message | undefined {
    const m = this.messagesById.get(id);
    return m && m.projectId === projectId ? m : undefined;
  }

  /** Newest first; `more` tells whether older matching messages remain. */
  listMessages(f: MessageFilter): { messages: Message[]; more: boolean } {
    const base = f.identity !== undefined ? this.byIdentity.get(f.identity) : f.appId !== undefined ? this.byApp.get(f.appId) : this.messages;
    const out: Message[] = [];
    let i = f.before === undefined ? base.length - 1 : firstAtOrAfter(base, f.before) - 1;
    for (; i >= 0; i--) {
      const m = base[i]!;
      if (m.projectId !== f.projectId || !f.appIds.has(m.appId) || (f.appId !== undefined && m.appId !== f.appId)) continue;
      if (out.length === f.limit) return { messages: out, more: true };
      out.push(m);
    }
    return { messages: out, more: false };
  }

  addWebhook(w: Webhook): Webhook {
    return this.webhooks.add(w);
  }

  webhook(id: string): Webhook | undefined {
    return this.webhooks.find(id)?.item;
  }

  webhooksOf(appId: string): Webhook[] {
    return [...this.webhooks.list(appId)];
  }

  deleteWebhook(w: Webhook): void {
    this.webhooks.remove(w.appId, w.id);
  }

  persist(): SavedConversationStore {
    return {
      apps: this.apps.save(),
      contacts: this.contacts.save(),
      conversations: Object.fromEntries(this.conversations),
      messages: this.messages,
      webhooks: this.webhooks.save(),
    };
  }

  /** Replaces the state with a saved one, rebuilding every index as the live additions would have. */
  restore(saved: SavedConversationStore): void {
    this.reset();
    for (const a of saved.apps) this.addApp(a);
    for (const c of saved.contacts) this.addContact(c);
    for (const [key, id] of Object.entries(saved.conversations)) this.conversations.set(key, id);
    for (const m of saved.messages) this.addMessage(m);
    for (const w of saved.webhooks) this.addWebhook(w);
  }

  /** Messages in id order (for a restore to requeue those not yet sent). */
  allMessages(): readonly Message[] {
    return this.messages;
  }

  reset(): void {
    this.apps.reset();
    this.contacts.reset();
    this.contactByIdentity.clear();
    this.conversations.clear();
    this.messagesById.clear();
    this.messages = [];
    this.byApp.reset();
    this.byIdentity.reset();
    this.webhooks.reset();
  }
}

/** Index of the first message whose id is >= `id` (the arrays are in id order). */
function firstAtOrAfter(list: readonly Message[], id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
