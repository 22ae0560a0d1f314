// CHATA senders (`.../chata/senders`, normal and embedded creation) and CHATB senders and categories
// (`.../chatb/...`): create, read, list, delete.
import { seg, type ProvisioningListQuery, type ProvisioningTransport } from './transport.js';
import type {
  ChataLocalStorage,
  ChataSenderErrorCode,
  ChataSenderState,
  ChataVertical,
  ChatbSenderState,
  ConversationRegion,
  ProvisioningComment,
  ProvisioningPage,
  ProvisioningRequestStatus,
} from '../../common/wire/provisioning.js';

// ---------------------------------------------------------------------------------------------
// CHATA
// ---------------------------------------------------------------------------------------------

export interface CreateChataSenderRequest {
  /** E.164; relayflow's idempotency key for CHATA senders. */
  phoneNumber: string;
  displayName: string;
  /** At most 512 characters. */
  description?: string;
  vertical?: ChataVertical;
  /** The connected conversation app; `region` must be the app's region. */
  conversationApiAppDetails?: { appId: string; region: ConversationRegion };
  platformLocalStorage?: ChataLocalStorage;
  status?: ProvisioningRequestStatus;
  saveDraftOnFailure?: boolean;
}

/** Embedded sign-up: both fields required (the older access-token/code body is deprecated). */
export interface CreateEmbeddedChataSenderRequest {
  businessAccountId: string;
  phoneNumberId: string;
}

export interface ChataSender {
  id: string;
  phoneNumber?: string;
  displayName?: string;
  state: ChataSenderState;
  errorCode?: ChataSenderErrorCode;
  errorReason?: string;
  maxTps?: number;
  compatibleRegions: string[];
  comments: ProvisioningComment[];
  createTime?: string;
  updateTime?: string;
  // Echoed for embedded senders when the platform sends them; not guaranteed.
  businessAccountId?: string;
  phoneNumberId?: string;
}

export type ChataSenderPage = ProvisioningPage<'senders', ChataSender>;

export class ProvisioningChataSendersClient {
  readonly #t: ProvisioningTransport;

  constructor(transport: ProvisioningTransport) {
    this.#t = transport;
  }

  create(request: CreateChataSenderRequest): Promise<ChataSender> {
    return this.#t.call<ChataSender>('POST', 'chata/senders', { json: request });
  }

  createEmbedded(request: CreateEmbeddedChataSenderRequest): Promise<ChataSender> {
    return this.#t.call<ChataSender>('POST', 'chata/senders:embedded', { json: request });
  }

  get(senderId: string): Promise<ChataSender> {
    return this.#t.call<ChataSender>('GET', `chata/senders/${seg(senderId)}`);
  }

  listPage(query: ProvisioningListQuery = {}): Promise<ChataSenderPage> {
    return this.#t.page<'senders', ChataSender>('chata/senders', 'senders', query);
  }

  listAll(query: Omit<ProvisioningListQuery, 'pageToken'> = {}): AsyncGenerator<ChataSender> {
    return this.#t.all<'senders', ChataSender>('chata/senders', 'senders', query);
  }

  /**
   * An ACTIVE sender answers 409 conflict; any other moves to DELETED and stays readable. The answer is the
   * deleted sender when the platform sends one.
   */
  delete(senderId: string): Promise<ChataSender | undefined> {
    return this.#t.call<ChataSender | undefined>('DELETE', `chata/senders/${seg(senderId)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// CHATB
// ---------------------------------------------------------------------------------------------

interface ChatbSubcategory {
  code: string;
  name: string;
  nameEnglish: string;
}

export interface ChatbCategory extends ChatbSubcategory {
  subcategories: ChatbSubcategory[];
}

export interface CreateChatbSenderRequest {
  /** 1..64 characters; relayflow's idempotency key for CHATB senders. */
  displayName: string;
  /** Must be a code from the categories list. */
  categoryCode: string;
  subcategoryCode?: string;
  /** At most 512 characters. */
  description?: string;
  status?: ProvisioningRequestStatus;
}

export interface ChatbSender {
  id: string;
  displayName?: string;
  categoryCode?: string;
  subcategoryCode?: string;
  state: ChatbSenderState;
  comments: ProvisioningComment[];
  createTime?: string;
  updateTime?: string;
}

export type ChatbSenderPage = ProvisioningPage<'senders', ChatbSender>;

export class ProvisioningChatbSendersClient {
  readonly #t: ProvisioningTransport;

  constructor(transport: ProvisioningTransport) {
    this.#t = transport;
  }

  async categories(): Promise<ChatbCategory[]> {
    const body = await this.#t.call<{ categories?: ChatbCategory[] } | undefined>('GET', 'chatb/categories');
    return body?.categories ?? [];
  }

  /** 400 invalid_input when categoryCode is unknown. */
  create(request: CreateChatbSenderRequest): Promise<ChatbSender> {
    return this.#t.call<ChatbSender>('POST', 'chatb/senders', { json: request });
  }

  get(senderId: string): Promise<ChatbSender> {
    return this.#t.call<ChatbSender>('GET', `chatb/senders/${seg(senderId)}`);
  }

  listPage(query: ProvisioningListQuery = {}): Promise<ChatbSenderPage> {
    return this.#t.page<'senders', ChatbSender>('chatb/senders', 'senders', query);
  }

  listAll(query: Omit<ProvisioningListQuery, 'pageToken'> = {}): AsyncGenerator<ChatbSender> {
    return this.#t.all<'senders', ChatbSender>('chatb/senders', 'senders', query);
  }

  /** An ACTIVE sender answers 409 conflict; any other is removed (reads and a second delete answer 404). */
  async delete(senderId: string): Promise<void> {
    await this.#t.call<unknown>('DELETE', `chatb/senders/${seg(senderId)}`);
  }
}
