import type { FamilyFacts } from '../kinds.js';

export const voiceFamily: FamilyFacts = { contracts: ['voice.ts', 'voice-call-driver.ts', 'voice-script.ts'], areas: ['voice'] };
