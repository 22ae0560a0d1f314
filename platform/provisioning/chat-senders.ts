// CHATA senders (`.../chata/senders`, normal and embedded creation) and CHATB senders and categories
// (`.../chatb/...`): create, read, list, delete.
import { ProvisioningResources } from './resources.js';
import type { ProvisioningTransport } from './transport.js';
import type {
  ChataAccount,
  ChataSender,
  ChatbCategory,
  ChatbSender,
  CreateChataSenderRequest,
  CreateChatbSenderRequest,
  CreateEmbeddedChataSenderRequest,
  RegisterChataSenderRequest,
  RegisterChataSenderResponse,
  UpdateChataSenderRequest,
  UpdateChatbSenderRequest,
  VerifyChataSenderRequest,
} from '../../common/wire/provisioning.js';

// ---------------------------------------------------------------------------------------------
// CHATA
// ---------------------------------------------------------------------------------------------

export class ProvisioningChataSendersClient extends ProvisioningResources<ChataSender, 'senders', CreateChataSenderRequest> {
  constructor(transport: ProvisioningTransport) {
    super(transport, 'chata/senders', 'senders');
  }

  createEmbedded(request: CreateEmbeddedChataSenderRequest): Promise<ChataSender> {
    return this.t.call<ChataSender>('POST', `${this.collection}:embedded`, { json: request });
  }

  /** Sends a verification code to the sender's number (a sender in ERROR for an unverified number; else 409). */
  register(senderId: string, request: RegisterChataSenderRequest): Promise<RegisterChataSenderResponse> {
    return this.t.call<RegisterChataSenderResponse>('POST', this.item(senderId, '/register'), { json: request });
  }

  /** The code the number received: the sender back under review; a wrong code is 400 `wrong_otp`. */
  verify(senderId: string, request: VerifyChataSenderRequest): Promise<ChataSender> {
    return this.t.call<ChataSender>('POST', this.item(senderId, '/verify'), { json: request });
  }

  /** The business profile (description, about, photoUrl): applied at once, the sender's state unchanged; DELETED answers 409. */
  update(senderId: string, request: UpdateChataSenderRequest): Promise<ChataSender> {
    return this.t.call<ChataSender>('PATCH', this.item(senderId), { json: request });
  }

  /** The project's business account, with its ban state. */
  account(): Promise<ChataAccount> {
    return this.t.call<ChataAccount>('GET', 'chata');
  }

  /**
   * An ACTIVE sender answers 409 conflict unless `force` (retiring a live sender); any other moves to DELETED and
   * stays readable. The answer is the deleted sender when the platform sends one.
   */
  delete(senderId: string, opts: { force?: boolean } = {}): Promise<ChataSender | undefined> {
    return this.t.call<ChataSender | undefined>('DELETE', this.item(senderId), opts.force ? { query: { force: 'true' } } : {});
  }
}

// ---------------------------------------------------------------------------------------------
// CHATB
// ---------------------------------------------------------------------------------------------

/** `create`: 400 invalid_input when categoryCode is unknown. */
export class ProvisioningChatbSendersClient extends ProvisioningResources<ChatbSender, 'senders', CreateChatbSenderRequest> {
  constructor(transport: ProvisioningTransport) {
    super(transport, 'chatb/senders', 'senders');
  }

  async categories(): Promise<ChatbCategory[]> {
    const body = await this.t.call<{ categories?: ChatbCategory[] } | undefined>('GET', 'chatb/categories');
    return body?.categories ?? [];
  }

  /**
   * Only the fields given change. An ACTIVE sender's change is reviewed: the answer is the sender IN_REVIEW, then
   * ACTIVE with the change, or ACTIVE without it and CHATB_SENDER_REJECTED; a sender IN_REVIEW answers 409 conflict.
   */
  update(senderId: string, request: UpdateChatbSenderRequest): Promise<ChatbSender> {
    return this.t.call<ChatbSender>('PATCH', this.item(senderId), { json: request });
  }

  /** An ACTIVE sender answers 409 conflict unless `force` (retiring a live sender); any other is removed (reads and a second delete answer 404). */
  async delete(senderId: string, opts: { force?: boolean } = {}): Promise<void> {
    await this.t.call<unknown>('DELETE', this.item(senderId), opts.force ? { query: { force: 'true' } } : {});
  }
}
