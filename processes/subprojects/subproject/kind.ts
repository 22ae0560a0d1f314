// A subproject of the caller's project, created and followed until usable.
import type { SubprojectState } from './contract.js';
import { defineKind, everyState } from '../../descriptor.js';

export const subproject = defineKind<SubprojectState>()({
  kind: 'subproject',
  family: 'subprojects',
  workflowType: 'subprojectProvisioning',
  id: (parentProjectId: string, displayName: string) => `subproject:${parentProjectId}:${displayName}`,
  states: {
    all: everyState<SubprojectState>()(['CREATING', 'WAITING_UNTIL_USABLE', 'READY', 'FAILED']),
    initial: 'CREATING',
    final: ['READY', 'FAILED'],
    succeeded: ['READY'],
    failed: ['FAILED'],
  },
  collection: { path: '/v1/subprojects', tag: 'subprojects' },
});
