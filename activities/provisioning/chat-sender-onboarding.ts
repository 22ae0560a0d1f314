// Activities of CHATA and CHATB sender onboarding: idempotent creates (looked up first: CHATA by phone
// number, or phoneNumberId for embedded sign-up; CHATB by displayName), and reads.
import type { ProvisioningClient } from '../../platform/provisioning/client.js';
import type { ChataSender, ChatbSender } from '../../platform/provisioning/chat-senders.js';
import type {
  CreateChataSenderInput,
  CreateChataSenderResult,
  CreateChatbSenderInput,
  CreateChatbSenderResult,
  CreateEmbeddedChataSenderInput,
  SenderRef,
} from '../../contracts/provisioning.js';
import { withFailureMappingAll } from '../shared/failures.js';
import { findFirst, findOrCreate, LOOKUP_PAGE_SIZE, samePhoneNumber } from './lookup.js';

function isEmbeddedChataInput(input: CreateChataSenderInput): input is CreateEmbeddedChataSenderInput {
  return 'businessAccountId' in input && typeof input.businessAccountId === 'string';
}

export function createChatSenderOnboardingActivities(clients: { provisioning: ProvisioningClient }) {
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
