import type { FamilyFacts } from '../kinds.js';

export const onboardingFamily: FamilyFacts = { areas: [] };
