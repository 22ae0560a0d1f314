import type { FamilyFacts } from '../kinds.js';

export const verificationFamily: FamilyFacts = { areas: ['verification'] };
