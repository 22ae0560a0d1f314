// A bundle: one platform request that makes several resources, followed until active, deletable.
import type { BundleProcessState } from '../contract.js';
import { defineKind, everyState } from '../../descriptor.js';
import { PROVISIONING_SIGNALS } from '../states.js';

export const bundleProvisioning = defineKind<BundleProcessState>()({
  kind: 'bundle-provisioning',
  family: 'provisioning',
  workflowType: 'bundleProvisioning',
  /** Keyed by the caller's bundle key (CAMPAIGN_KEY_PATTERN). */
  id: (projectId: string, key: string) => `bundle-provisioning:${projectId}:${key}`,
  states: {
    all: everyState<BundleProcessState>()(['CREATING', 'IN_PROGRESS', 'ACTIVE', 'FAILED', 'DELETING', 'DELETED', 'STOPPED']),
    initial: 'CREATING',
    final: ['ACTIVE', 'FAILED', 'DELETED', 'STOPPED'],
    succeeded: ['ACTIVE'],
    failed: ['FAILED'],
  },
  signals: PROVISIONING_SIGNALS,
  updates: ['stop', 'delete'],
  collection: { path: '/v1/bundles', tag: 'bundles' },
});
