// Activities of a sender's change (updateSender): one PATCH per channel. A retry whose first attempt's answer was
// lost finds a reviewed change under review already (the platform answers 409 to a second one): the sender is read.
// A change applied at once (CHATA) is the same PATCH again, which changes nothing more.
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import type { ChataSender, ChatbSender } from '../../../common/wire/provisioning.js';
import type { RcsSender } from '../../../platform/provisioning/rcs-senders.js';
import type { UpdateChataSenderInput, UpdateChatbSenderInput, UpdateRcsSenderInput } from '../contract.js';
import { isProvisioningError, PROVISIONING_ERROR_CODES } from '../../../platform/provisioning/errors.js';
import { withFailureMappingAll } from '../../shared/activities/failures.js';

async function sentOrInReview<S extends { state: string }>(send: () => Promise<S>, read: () => Promise<S>): Promise<S> {
  try {
    return await send();
  } catch (err) {
    if (!isProvisioningError(err, PROVISIONING_ERROR_CODES.conflict)) throw err;
    const sender = await read();
    if (sender.state !== 'IN_REVIEW') throw err;
    return sender;
  }
}

export function createSenderChangeActivities(clients: { provisioning: ProvisioningClient }) {
  const { chataSenders, chatbSenders, rcs } = clients.provisioning;
  return withFailureMappingAll({
    async updateChataSender(input: UpdateChataSenderInput): Promise<ChataSender> {
      return chataSenders.update(input.senderId, input.changes);
    },

    async updateChatbSender(input: UpdateChatbSenderInput): Promise<ChatbSender> {
      return sentOrInReview(
        () => chatbSenders.update(input.senderId, input.changes),
        () => chatbSenders.get(input.senderId),
      );
    },

    async updateRcsSender(input: UpdateRcsSenderInput): Promise<RcsSender> {
      return sentOrInReview(
        () => rcs.update(input.senderId, input.changes),
        () => rcs.get(input.senderId),
      );
    },
  });
}
