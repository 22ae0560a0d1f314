// What every provisioning route module shares.
import type { SandboxContext } from '../../core/context.js';
import type { WebhookEvents } from './delivery.js';
import type { Reviewer } from './reviewer.js';
import type { ProvisioningStore } from './store.js';

export interface ProvisioningDeps {
  ctx: SandboxContext;
  store: ProvisioningStore;
  hub: WebhookEvents;
  reviewer: Reviewer;
}
