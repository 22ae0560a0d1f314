// State of the conversation area: apps, contacts, conversations, messages and webhooks (the `kept` parts a
// persistent sandbox saves and loads across a restart).
// Messages are kept in id order (monotonic ULIDs) with indexes by app and by identity, so listing
// newest first and paging by "older than this id" stay cheap with tens of thousands of messages.
import { monotonicFactory } from 'ulid';
import { keptTogether, type Kept } from '../../core/kept.js';
import { KeyedTable, Lists, ScopedTable } from '../../core/table.js';
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

export class ConversationStore {
  /** One factory for every id, so message ids sort in acceptance order. */
  readonly newId = monotonicFactory();
  private readonly apps = new ScopedTable<App>({ scope: (a) => a.projectId });
  private readonly contacts = new ScopedTable<Contact>({ scope: (c) => c.projectId });
  /** Index of `contacts`, rebuilt by a load. */
  private readonly contactByIdentity = new Map<string, Contact>();
  /** `${appId} ${contactId}` -> conversation id. */
  private readonly conversations = new KeyedTable<string>();
  /** Index of `messages`, rebuilt by a load. */
  private readonly messagesById = new Map<string, Message>();
  /** In id order. */
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

  /** What a restart keeps: every record; the indexes are rebuilt as the live additions would have. */
  readonly kept: Kept<Record<string, unknown>> = keptTogether({
    apps: this.apps,
    contacts: {
      save: () => this.contacts.save(),
      load: (saved: Contact[]) => {
        this.contacts.reset();
        this.contactByIdentity.clear();
        for (const c of saved) this.addContact(c);
      },
    },
    conversations: this.conversations,
    messages: {
      save: () => this.messages,
      load: (saved: Message[]) => {
        this.resetMessages();
        for (const m of saved) this.addMessage(m);
      },
    },
    webhooks: this.webhooks,
  });

  /** Messages in id order (for a restore to requeue those not yet sent). */
  allMessages(): readonly Message[] {
    return this.messages;
  }

  reset(): void {
    this.apps.reset();
    this.contacts.reset();
    this.contactByIdentity.clear();
    this.conversations.reset();
    this.resetMessages();
    this.webhooks.reset();
  }

  private resetMessages(): void {
    this.messagesById.clear();
    this.messages = [];
    this.byApp.reset();
    this.byIdentity.reset();
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
