import type { FamilyFacts } from '../kinds.js';

export const campaignsFamily: FamilyFacts = { areas: ['conversation', 'mms'] };
