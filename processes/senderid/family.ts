import type { FamilyFacts } from '../kinds.js';

export const senderidFamily: FamilyFacts = { contracts: ['senderid.ts', 'senderid-registration.ts'], areas: ['senderid'] };
