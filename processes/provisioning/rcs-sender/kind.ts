// An RCS sender: created, then launched country by country; it ends once launched everywhere.
import { RCS_SENDER_UPDATABLE, RCS_STATES } from '../../../common/wire/provisioning.js';
import { defineKind } from '../../descriptor.js';
import { PROVISIONING_OWN_STATES, PROVISIONING_SIGNALS } from '../states.js';

export const rcsSender = defineKind<string>()({
  kind: 'rcs-sender',
  family: 'provisioning',
  workflowType: 'rcsSenderLaunch',
  versioning: 'auto-upgrade',
  id: (projectId: string, displayName: string) => `rcs-sender:${projectId}:${displayName}`,
  states: {
    all: [...PROVISIONING_OWN_STATES, ...RCS_STATES],
    initial: 'CREATING',
    // LAUNCHED ends it too once every country launched and no change is pending: a condition, not a state.
    final: ['STOPPED', 'FAILED'],
    succeeded: ['LAUNCHED'],
    failed: ['REJECTED', 'FAILED'],
    waiting: [],
  },
  signals: [...PROVISIONING_SIGNALS, 'relaunchRequested'],
  updates: ['relaunch', 'stop', 'updateSender'],
  retryInPlace: { update: 'relaunch', from: ['REJECTED'] },
  change: { fields: RCS_SENDER_UPDATABLE, live: 'LAUNCHED', name: 'RCS sender' },
  collection: { path: '/v1/senders', tag: 'senders', styles: ['rcs'] },
});
