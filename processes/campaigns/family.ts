import type { FamilyFacts } from '../kinds.js';

export const campaignsFamily: FamilyFacts = { contracts: ['campaigns.ts'], areas: ['conversation', 'mms'] };
