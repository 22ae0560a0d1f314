import type { FamilyFacts } from '../kinds.js';

export const subprojectsFamily: FamilyFacts = { contracts: ['subprojects.ts'], areas: ['subprojects'] };
