// The areas the sandbox serves: a new platform area is added to this list.
import type { SandboxArea } from '../core/area.js';
import { authArea } from './auth.js';
import { conversationArea } from './conversation/index.js';
import { provisioningArea } from './provisioning/index.js';
import { senderIdArea } from './senderid/index.js';
import { mmsArea } from './mms/index.js';
import { subprojectsArea } from './subprojects/index.js';
import { verificationArea } from './verification/index.js';
import { voiceArea } from './voice/index.js';
import { voiceConfigArea } from './voice-config/index.js';

export type { SandboxArea } from '../core/area.js';

export const SANDBOX_AREAS: readonly SandboxArea[] = [
  authArea,
  subprojectsArea,
  verificationArea,
  provisioningArea,
  senderIdArea,
  conversationArea,
  mmsArea,
  voiceConfigArea,
  voiceArea,
];
