// The verification area's parts, shared by its routes and its control routes.
import type { SandboxContext } from '../../core/context.js';
import type { Timers } from '../../core/timers.js';
import type { VerificationConfig } from './config.js';
import type { Phones } from './phone.js';
import type { VerificationService } from './service.js';
import type { VerificationStore } from './store.js';

export interface VerificationArea {
  ctx: SandboxContext;
  store: VerificationStore;
  phones: Phones;
  config: VerificationConfig;
  timers: Timers;
  service: VerificationService;
}
