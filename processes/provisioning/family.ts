import type { FamilyFacts } from '../kinds.js';

/** `attach`: a resource inbox (workflows/provisioning/resource-inbox.ts) told of the process it hands events to. */
export const provisioningFamily: FamilyFacts = { contracts: ['provisioning.ts'], areas: ['provisioning'], signals: ['attach'] };
