// Activities of subproject provisioning: an idempotent create (the process then waits out the spec's 30 s).
import type { PlatformClients } from '../../../../platform/index.js';
import type { EnsureSubprojectInput, EnsureSubprojectResult, SubprojectActivities } from '../contract.js';
import { withFailureMappingAll } from '../../../shared/activities/failures.js';

export function createSubprojectActivities(clients: Pick<PlatformClients, 'subprojects'>): SubprojectActivities {
  const { subprojects } = clients;
  return withFailureMappingAll({
    async ensureSubproject(input: EnsureSubprojectInput): Promise<EnsureSubprojectResult> {
      // Look first: a previous attempt may have created it and lost the answer.
      let existing: EnsureSubprojectResult | undefined;
      for await (const s of subprojects.listAll(input.parentProjectId)) {
        // Several matches (made outside relayflow): the oldest is the stable choice across retries.
        if (s.displayName === input.displayName && (!existing || s.createTime < existing.createTime)) {
          existing = pick(s, input.parentProjectId, false);
        }
      }
      if (existing) return existing;
      const created = await subprojects.create(input.parentProjectId, { displayName: input.displayName });
      return pick(created, input.parentProjectId, true);
    },
  });
}

function pick(
  s: { projectId: string; displayName: string; parentProjectId?: string; createTime: string },
  parentProjectId: string,
  created: boolean,
): EnsureSubprojectResult {
  return {
    projectId: s.projectId,
    displayName: s.displayName,
    parentProjectId: s.parentProjectId ?? parentProjectId,
    createTime: s.createTime,
    created,
  };
}
