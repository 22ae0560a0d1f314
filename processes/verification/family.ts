import type { FamilyFacts } from '../kinds.js';

export const verificationFamily: FamilyFacts = { contracts: ['verification.ts', 'sdk-verification.ts'], areas: ['verification'] };
