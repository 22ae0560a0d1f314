// An RCS sender: created, then launched country by country; it ends once launched everywhere.
import { RCS_SENDER_UPDATABLE, RCS_STATES } from '../../../common/wire/provisioning.js';
import { senderKind } from '../provisioning-kinds.js';

export const rcsSender = senderKind('rcs', {
  workflowType: 'rcsSenderLaunch',
  states: {
    all: RCS_STATES,
    // LAUNCHED ends it too once every country launched and no change is pending: a condition, not a state.
    final: ['STOPPED', 'FAILED'],
    succeeded: ['LAUNCHED'],
    failed: ['REJECTED', 'FAILED'],
  },
  signals: ['relaunchRequested'],
  updates: ['relaunch', 'stop', 'updateSender'],
  retryInPlace: { update: 'relaunch', from: ['REJECTED'] },
  change: { fields: RCS_SENDER_UPDATABLE, live: 'LAUNCHED' },
});
