// CHATA senders (`.../chata/senders`, normal and embedded creation) and CHATB senders and categories
// (`.../chatb/...`): create, read, list, delete.
import { ProvisioningResources } from './resources.js';
import type { ProvisioningTransport } from './transport.js';
import type {
  ChataLocalStorage,
  ChataSenderErrorCode,
  ChataSenderState,
  ChataVertical,
  ChatbSenderState,
  ConversationRegion,
  ProvisioningComment,
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

export class ProvisioningChataSendersClient extends ProvisioningResources<ChataSender, 'senders', CreateChataSenderRequest> {
  constructor(transport: ProvisioningTransport) {
    super(transport, 'chata/senders', 'senders');
  }

  createEmbedded(request: CreateEmbeddedChataSenderRequest): Promise<ChataSender> {
    return this.t.call<ChataSender>('POST', `${this.collection}:embedded`, { json: request });
  }

  /**
   * An ACTIVE sender answers 409 conflict; any other moves to DELETED and stays readable. The answer is the
   * deleted sender when the platform sends one.
   */
  delete(senderId: string): Promise<ChataSender | undefined> {
    return this.t.call<ChataSender | undefined>('DELETE', this.item(senderId));
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

/** `create`: 400 invalid_input when categoryCode is unknown. */
export class ProvisioningChatbSendersClient extends ProvisioningResources<ChatbSender, 'senders', CreateChatbSenderRequest> {
  constructor(transport: ProvisioningTransport) {
    super(transport, 'chatb/senders', 'senders');
  }

  async categories(): Promise<ChatbCategory[]> {
    const body = await this.t.call<{ categories?: ChatbCategory[] } | undefined>('GET', 'chatb/categories');
    return body?.categories ?? [];
  }

  /** An ACTIVE sender answers 409 conflict; any other is removed (reads and a second delete answer 404). */
  async delete(senderId: string): Promise<void> {
    await this.t.call<unknown>('DELETE', this.item(senderId));
  }
}
