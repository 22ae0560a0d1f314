// A customer's key acts in the platform project, which every customer shares (its apps' rate is shared fairly), or in
// its own customer's subprojects, never in another's. Its subprojects are the ones its subproject processes made: the
// platform names a subproject's display name, which is that process's key; the process must be the customer's and
// READY, in Temporal or, its history gone after retention, in the audit archive.
import { workflowIds } from '../../processes/kinds.js';
import type { SubprojectsClient } from '../../platform/subprojects/client.js';
import { PlatformNotFoundError } from '../../platform/errors.js';
import { unprocessable } from '../errors.js';
import { currentTenant } from '../plugins/actor.js';
import type { ProcessService } from './find.js';

interface CustomerProjectDeps {
  processes: ProcessService;
  subprojects: SubprojectsClient;
  /** The platform project every customer's subproject is made under. */
  parentProjectId: string;
}

/**
 * Refuses (422 naming `field`) a project a customer's (tenant) key names that is not one of its customer's
 * subprojects; any other key, or no project named, passes.
 */
export type CustomerProjectCheck = (field: string, projectId: string | undefined) => Promise<void>;

export function customerProjectCheck(deps: CustomerProjectDeps): CustomerProjectCheck {
  return async (field, projectId) => {
    if (projectId === undefined || !currentTenant()) return; // the platform project, or a key of no customer
    const notTheirs = () => unprocessable(field, 'not_customer_project', "is not a subproject of this key's customer");
    const sub = await deps.subprojects.get(deps.parentProjectId, projectId).catch((err: unknown) => {
      if (err instanceof PlatformNotFoundError) throw notTheirs();
      throw err;
    });
    if (!sub.displayName || sub.projectId !== projectId) throw notTheirs();
    // The list keeps a tenant key to its own customer's processes, and goes on into the archive.
    const { processes } = await deps.processes.list({
      kind: 'subproject',
      key: workflowIds.subproject(deps.parentProjectId, sub.displayName),
      state: 'READY',
      pageSize: 1,
    });
    if (!processes.length) throw notTheirs();
  };
}
