import type { FamilyFacts } from '../kinds.js';

export const senderidFamily: FamilyFacts = { areas: ['senderid'] };
