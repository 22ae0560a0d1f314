// Activities of CHATA and CHATB sender onboarding: idempotent creates (looked up first: CHATA by phone
// number, or phoneNumberId for embedded sign-up; CHATB by displayName), reads and CHATB categories.
import type { ProvisioningClient } from '../../platform/provisioning/client.js';
import type {
  ChataSender,
  ChatbCategory,
  ChatbSender,
  CreateChataSenderRequest,
  CreateChatbSenderRequest,
  CreateEmbeddedChataSenderRequest,
} from '../../platform/provisioning/chat-senders.js';
import { withFailureMappingAll } from '../shared/failures.js';
import { findFirst, findOrCreate, LOOKUP_PAGE_SIZE, samePhoneNumber } from './lookup.js';

/**
 * Embedded sign-up. Only businessAccountId and phoneNumberId are sent; `phoneNumber` (the number behind
 * phoneNumberId, when the caller knows it) only helps find a sender an earlier attempt created.
 */
export type CreateEmbeddedChataSenderInput = CreateEmbeddedChataSenderRequest & { phoneNumber?: string };

/** A normal create (has `phoneNumber` + `displayName`) or an embedded one (has `businessAccountId`). */
export type CreateChataSenderInput = CreateChataSenderRequest | CreateEmbeddedChataSenderInput;

/** `created: false` when a (not DELETED) sender for this number already existed. */
export type CreateChataSenderResult = ChataSender & { created: boolean };

/** The create request itself; `displayName` is the idempotency key. */
export type CreateChatbSenderInput = CreateChatbSenderRequest;
export type CreateChatbSenderResult = ChatbSender & { created: boolean };

export interface SenderRef {
  senderId: string;
}

export function isEmbeddedChataInput(input: CreateChataSenderInput): input is CreateEmbeddedChataSenderInput {
  return 'businessAccountId' in input && typeof input.businessAccountId === 'string';
}

export function createProvisioningSenderActivities(clients: { provisioning: ProvisioningClient }) {
  const { chataSenders, chatbSenders } = clients.provisioning;
  return withFailureMappingAll({
    async createChataSender(input: CreateChataSenderInput): Promise<CreateChataSenderResult> {
      const live = (s: ChataSender) => s.state !== 'DELETED';
      const all = () => chataSenders.listAll({ pageSize: LOOKUP_PAGE_SIZE });
      if (isEmbeddedChataInput(input)) {
        const { businessAccountId, phoneNumberId } = input;
        return findOrCreate(
          () => findFirst(all(), (s) => live(s) && (s.phoneNumberId === phoneNumberId || samePhoneNumber(s.phoneNumber, input.phoneNumber))),
          () => chataSenders.createEmbedded({ businessAccountId, phoneNumberId }),
        );
      }
      return findOrCreate(
        () => findFirst(all(), (s) => live(s) && samePhoneNumber(s.phoneNumber, input.phoneNumber)),
        () => chataSenders.create(input),
      );
    },

    async getChataSender(input: SenderRef): Promise<ChataSender> {
      return chataSenders.get(input.senderId);
    },

    async listChatbCategories(): Promise<ChatbCategory[]> {
      return chatbSenders.categories();
    },

    async createChatbSender(input: CreateChatbSenderInput): Promise<CreateChatbSenderResult> {
      return findOrCreate(
        () => findFirst(chatbSenders.listAll({ pageSize: LOOKUP_PAGE_SIZE }), (s) => s.displayName === input.displayName),
        () => chatbSenders.create(input),
      );
    },

    async getChatbSender(input: SenderRef): Promise<ChatbSender> {
      return chatbSenders.get(input.senderId);
    },
  });
}
