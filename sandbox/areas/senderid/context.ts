// What every sender ID route module shares.
import type { SandboxContext } from '../../core/context.js';
import type { SenderIdCallbacks } from './delivery.js';
import type { Reviewer } from './review.js';
import type { SenderIdStore } from './store.js';

export interface SenderIdDeps {
  ctx: SandboxContext;
  store: SenderIdStore;
  hub: SenderIdCallbacks;
  reviewer: Reviewer;
}
