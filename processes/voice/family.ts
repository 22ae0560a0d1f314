import type { FamilyFacts } from '../kinds.js';

export const voiceFamily: FamilyFacts = { areas: ['voice'] };
