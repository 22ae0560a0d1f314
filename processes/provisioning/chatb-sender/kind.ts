// A CHATB sender: created and followed until active; retired through the API while its process runs (RETIRED: deleted
// on the platform).
import { CHATB_SENDER_STATES, CHATB_SENDER_UPDATABLE } from '../../../common/wire/provisioning.js';
import { senderKind } from '../provisioning-kinds.js';

export const chatbSender = senderKind('chatb', {
  workflowType: 'chatbSenderApproval',
  states: {
    all: [...CHATB_SENDER_STATES, 'DRAFT_SAVED', 'RETIRED'],
    final: ['ACTIVE', 'DRAFT_SAVED', 'STOPPED', 'FAILED', 'RETIRED'],
    succeeded: ['ACTIVE', 'DRAFT_SAVED'],
    failed: ['FAILED'],
    waiting: ['DRAFT_SAVED'],
  },
  updates: ['stop', 'updateSender', 'retire'],
  change: { fields: CHATB_SENDER_UPDATABLE, live: 'ACTIVE' },
});
