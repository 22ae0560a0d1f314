import type { FamilyFacts } from '../kinds.js';

/** `attach`: a resource inbox (processes/provisioning/workflow/resource-inbox.ts) told of the process it hands events to. */
export const provisioningFamily: FamilyFacts = { areas: ['provisioning'], signals: ['attach'] };
