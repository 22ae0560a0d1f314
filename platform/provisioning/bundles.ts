// Bundles (`/v1/projects/{projectId}/bundles`): a work order that sets up, in one region, a subproject
// (an existing one, or a new one), a conversation app (processing mode, retention policy) and an SMS app.
// Create, read, list, delete. Contract: docs/bundle-wire.md.
import { ProvisioningResources } from './resources.js';
import type { ProvisioningTransport } from './transport.js';
import type { BundleProcessingMode, ConversationRegion, Bundle, BundleRetentionPolicy } from '../../common/wire/provisioning.js';

export type { Bundle } from '../../common/wire/provisioning.js';

export interface CreateBundleRequest {
  /** 1..128 characters; the default name of the resources it creates. */
  name: string;
  region: ConversationRegion;
  /** Put the apps in this existing subproject. Without it (and without `subproject`) they go in the project. */
  subprojectId?: string;
  /** Create a new subproject for the apps (not together with `subprojectId`). */
  subproject?: { name?: string; labels?: Record<string, string> };
  /** The conversation app; `processingMode` defaults to DISPATCH. */
  convApp?: { name?: string; processingMode?: BundleProcessingMode; retentionPolicy?: BundleRetentionPolicy };
  smsApp?: { name?: string };
  /** Echoed on the bundle (at most 10; keys and values 1..128 characters): relayflow keys its bundles here. */
  labels?: Record<string, string>;
}

/**
 * `create` answers at once with state IN_PROGRESS; BUNDLE_DONE (and the bundle's state) tell the outcome. `get`: 400
 * invalid_bundle_id for a malformed ID, 404 for an unknown one.
 */
export class ProvisioningBundlesClient extends ProvisioningResources<Bundle, 'bundles', CreateBundleRequest> {
  constructor(transport: ProvisioningTransport) {
    super(transport, 'bundles', 'bundles');
  }

  /** The bundle becomes DELETED (its apps are removed; a subproject it did not create stays). 404 when already deleted. */
  delete(bundleId: string): Promise<Bundle> {
    return this.t.call<Bundle>('DELETE', this.item(bundleId));
  }
}
