// Activities of CHATA and CHATB sender approval: idempotent creates (looked up first: CHATA by phone
// number, or phoneNumberId for embedded sign-up; CHATB by displayName) that link their process to the sender
// (resource-link.ts), reads, a CHATA sender's phone
// verification (request a code, send it back) and the CHATA business account.
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import type { ChataSender, ChatbSender } from '../../../common/wire/provisioning.js';
import {
  CHATA_UNVERIFIED_NUMBER_ERRORS,
  type CreateChataSenderInput,
  type CreateChataSenderResult,
  type CreateChatbSenderInput,
  type CreateChatbSenderResult,
  type CreateEmbeddedChataSenderInput,
  type RequestChataSenderCodeInput,
  type SenderRef,
  type VerifyChataSenderInput,
  type VerifyChataSenderResult,
} from '../contract.js';
import { isProvisioningError, PROVISIONING_ERROR_CODES } from '../../../platform/provisioning/errors.js';
import { withFailureMappingAll } from '../../shared/activities/failures.js';
import { findFirst, findOrCreate, LOOKUP_PAGE_SIZE, samePhoneNumber } from '../../../platform/lookup.js';
import { createLinkedSender, processLinker, type LinkDeps } from './resource-link.js';

const unverified = (s: ChataSender) => s.state === 'ERROR' && s.errorCode !== undefined && CHATA_UNVERIFIED_NUMBER_ERRORS.includes(s.errorCode);

function isEmbeddedChataInput(input: CreateChataSenderInput): input is CreateEmbeddedChataSenderInput {
  return 'businessAccountId' in input && typeof input.businessAccountId === 'string';
}

export function createChatSenderApprovalActivities(deps: { provisioning: ProvisioningClient } & LinkDeps) {
  const { chataSenders, chatbSenders } = deps.provisioning;
  return withFailureMappingAll({
    async createChataSender(input: CreateChataSenderInput): Promise<CreateChataSenderResult> {
      const linker = processLinker(deps);
      const live = (s: ChataSender) => s.state !== 'DELETED';
      const all = () => chataSenders.listAll({ pageSize: LOOKUP_PAGE_SIZE });
      const sender = isEmbeddedChataInput(input)
        ? await findOrCreate(
            () => findFirst(all(), (s) => live(s) && (s.phoneNumberId === input.phoneNumberId || samePhoneNumber(s.phoneNumber, input.phoneNumber))),
            () => chataSenders.createEmbedded({ businessAccountId: input.businessAccountId, phoneNumberId: input.phoneNumberId }),
          )
        : await findOrCreate(
            () => findFirst(all(), (s) => live(s) && samePhoneNumber(s.phoneNumber, input.phoneNumber)),
            () => chataSenders.create(input),
          );
      await linker.link({ channel: 'CHATA', resourceType: 'SENDER', resourceId: sender.id });
      return sender;
    },

    async getChataSender(input: SenderRef): Promise<ChataSender> {
      return chataSenders.get(input.senderId);
    },

    /** A retry after a lost answer finds it DELETED (answered again) or gone (404): both are done. */
    async deleteChataSender(input: SenderRef): Promise<{ deleted: boolean }> {
      try {
        await chataSenders.delete(input.senderId, { force: true });
        return { deleted: true };
      } catch (err) {
        if (isProvisioningError(err, PROVISIONING_ERROR_CODES.notFound)) return { deleted: false };
        throw err;
      }
    },

    /** Each call sends a new code (the platform's previous one stops working): a retry only sends another. */
    async requestChataSenderCode(input: RequestChataSenderCodeInput): Promise<{ method: string; sentAt: string }> {
      const sent = await chataSenders.register(input.senderId, { method: input.method });
      return { method: sent.method, sentAt: sent.accepted };
    },

    async verifyChataSender(input: VerifyChataSenderInput): Promise<VerifyChataSenderResult> {
      try {
        return { verified: true, sender: await chataSenders.verify(input.senderId, { code: input.code }) };
      } catch (err) {
        if (isProvisioningError(err, PROVISIONING_ERROR_CODES.wrongOtp)) return { verified: false, wrongCode: true, errorCode: err.code, message: err.message };
        if (!isProvisioningError(err, PROVISIONING_ERROR_CODES.conflict)) throw err;
        // Not waiting for a code: verified by an earlier attempt whose answer was lost, or never asked for one.
        const sender = await chataSenders.get(input.senderId);
        return unverified(sender) ? { verified: false, wrongCode: false, errorCode: err.code, message: err.message } : { verified: true, sender };
      }
    },

    async getChataAccount() {
      return chataSenders.account();
    },

    async createChatbSender(input: CreateChatbSenderInput): Promise<CreateChatbSenderResult> {
      return createLinkedSender(deps, 'CHATB', chatbSenders, input);
    },

    async getChatbSender(input: SenderRef): Promise<ChatbSender> {
      return chatbSenders.get(input.senderId);
    },

    /** A retry after a lost answer finds it gone (404): done. */
    async deleteChatbSender(input: SenderRef): Promise<{ deleted: boolean }> {
      try {
        await chatbSenders.delete(input.senderId, { force: true });
        return { deleted: true };
      } catch (err) {
        if (isProvisioningError(err, PROVISIONING_ERROR_CODES.notFound)) return { deleted: false };
        throw err;
      }
    },
  });
}
