// The areas the sandbox serves; later issues add theirs here.
import type { SandboxArea } from './area.js';
import { authArea } from './auth.js';
import { provisioningArea } from './provisioning.js';
import { subprojectsArea } from './subprojects.js';
import { verificationArea } from './verification.js';

export type { AreaRoutes, SandboxArea } from './area.js';

export const SANDBOX_AREAS: readonly SandboxArea[] = [authArea, subprojectsArea, verificationArea, provisioningArea];
