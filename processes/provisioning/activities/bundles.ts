// Activities of bundle provisioning: an idempotent create (the run's labels are looked up first, so a
// retried create finds the bundle it made) that links its process to the bundle (resource-link.ts), read, and delete
// (a second delete changes nothing).
import type { ProvisioningClient } from '../../../platform/provisioning/client.js';
import { PlatformNotFoundError } from '../../../platform/errors.js';
import type { Bundle } from '../../../platform/provisioning/bundles.js';
import { BUNDLE_KEY_LABEL, BUNDLE_RUN_LABEL, type BundleRef, type CreateBundleInput, type CreateBundleResult, type DeleteBundleResult } from '../contract.js';
import { withFailureMappingAll } from '../../shared/activities/failures.js';
import { findFirst, findOrCreate, LOOKUP_PAGE_SIZE } from '../../../platform/lookup.js';
import { processLinker, type LinkDeps } from './resource-link.js';

/** The bundle carries this run's labels (key and run): made by this run, perhaps by an attempt whose answer was lost. */
function isRunBundle(b: Bundle, labels: Record<string, string> | undefined): boolean {
  const key = labels?.[BUNDLE_KEY_LABEL];
  const run = labels?.[BUNDLE_RUN_LABEL];
  return key !== undefined && run !== undefined && b.labels?.[BUNDLE_KEY_LABEL] === key && b.labels?.[BUNDLE_RUN_LABEL] === run;
}

export function createBundleActivities(deps: { provisioning: ProvisioningClient } & LinkDeps) {
  const { bundles } = deps.provisioning;
  return withFailureMappingAll({
    async createBundle({ bundle }: CreateBundleInput): Promise<CreateBundleResult> {
      const linker = processLinker(deps);
      const created = await findOrCreate(
        () => findFirst(bundles.listAll({ pageSize: LOOKUP_PAGE_SIZE }), (b) => b.state !== 'DELETED' && isRunBundle(b, bundle.labels)),
        () => bundles.create(bundle),
      );
      await linker.link({ channel: 'PROJECT', resourceType: 'BUNDLE', resourceId: created.id });
      return created;
    },

    async getBundle({ bundleId }: BundleRef): Promise<Bundle> {
      return bundles.get(bundleId);
    },

    async deleteBundle({ bundleId }: BundleRef): Promise<DeleteBundleResult> {
      // Look first: an earlier attempt may have deleted it and lost the answer (the platform then says 404).
      let current: Bundle;
      try {
        current = await bundles.get(bundleId);
      } catch (err) {
        if (err instanceof PlatformNotFoundError) return { deleted: false };
        throw err;
      }
      if (current.state === 'DELETED') return { deleted: false, bundle: current };
      try {
        return { deleted: true, bundle: await bundles.delete(bundleId) };
      } catch (err) {
        if (err instanceof PlatformNotFoundError) return { deleted: false };
        throw err;
      }
    },
  });
}
