// A CHATB sender: created and followed until active.
import { CHATB_SENDER_STATES, CHATB_SENDER_UPDATABLE } from '../../../common/wire/provisioning.js';
import { senderKind } from '../provisioning-kinds.js';

export const chatbSender = senderKind('chatb', {
  workflowType: 'chatbSenderApproval',
  states: {
    all: [...CHATB_SENDER_STATES, 'DRAFT_SAVED'],
    final: ['ACTIVE', 'DRAFT_SAVED', 'STOPPED', 'FAILED'],
    succeeded: ['ACTIVE', 'DRAFT_SAVED'],
    failed: ['FAILED'],
    waiting: ['DRAFT_SAVED'],
  },
  updates: ['stop', 'updateSender'],
  change: { fields: CHATB_SENDER_UPDATABLE, live: 'ACTIVE' },
});
