import type { FamilyFacts } from '../kinds.js';

export const subprojectsFamily: FamilyFacts = { areas: ['subprojects'] };
