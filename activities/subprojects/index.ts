// Activities of subproject provisioning: an idempotent create, and the read that processes started before
// SUBPROJECT_USABLE_AFTER_PATCH still poll (newer ones wait out the spec's 30 s instead).
import type { PlatformClients } from '../../platform/index.js';
import { PlatformAuthError } from '../../platform/errors.js';
import type { EnsureSubprojectInput, EnsureSubprojectResult, IsSubprojectUsableInput, SubprojectActivities } from '../../contracts/subprojects.js';
import { withFailureMappingAll } from '../shared/failures.js';

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

    async isSubprojectUsable(input: IsSubprojectUsableInput): Promise<boolean> {
      try {
        await subprojects.get(input.parentProjectId, input.subprojectId);
        return true;
      } catch (err) {
        // The old processes' guess: a 403 PERMISSION_DENIED read meant "not usable yet" (the spec never says so).
        if (err instanceof PlatformAuthError && err.httpStatus === 403 && err.code === 'PERMISSION_DENIED') return false;
        throw err;
      }
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
