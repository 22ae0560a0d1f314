// Subproject provisioning: create a subproject under its parent and finish only once the parent can use it.
import { ApplicationFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { SubprojectActivities, SubprojectDetails, SubprojectInput, SubprojectResult, SubprojectState } from '../../contracts/subprojects.js';
import { platformActivityOptions } from '../shared/activity-options.js';
import { rootMessage } from '../shared/failure-text.js';
import { trackProcess } from '../shared/process-state.js';

const { ensureSubproject, isSubprojectUsable } = proxyActivities<SubprojectActivities>(platformActivityOptions);

export async function subprojectProvisioning(input: SubprojectInput): Promise<SubprojectResult> {
  const { parentProjectId, displayName } = input;
  const usableTimeoutMs = input.usableTimeoutMs ?? 120_000;
  const checkIntervalMs = input.checkIntervalMs ?? 2_000;
  const tracker = trackProcess<SubprojectState, SubprojectDetails>('subproject', 'CREATING', {
    parentProjectId,
    displayName,
    usabilityChecks: 0,
  });

  try {
    const sub = await ensureSubproject({ parentProjectId, displayName });
    tracker.update({ subprojectId: sub.projectId, createTime: sub.createTime });
    tracker.moveTo('WAITING_UNTIL_USABLE', sub.created ? 'created on the platform' : 'found an existing subproject with this name');

    const deadline = Date.now() + usableTimeoutMs;
    for (;;) {
      tracker.update({ usabilityChecks: tracker.status.details.usabilityChecks + 1 });
      if (await isSubprojectUsable({ parentProjectId, subprojectId: sub.projectId })) break;
      if (Date.now() >= deadline) {
        throw ApplicationFailure.nonRetryable(`subproject ${sub.projectId} was not usable with its parent within ${usableTimeoutMs} ms`, 'SubprojectNotUsable');
      }
      await sleep(checkIntervalMs);
    }
    tracker.moveTo('READY');
    const d = tracker.status.details;
    return { parentProjectId, displayName, subprojectId: sub.projectId, createTime: sub.createTime, usabilityChecks: d.usabilityChecks };
  } catch (err) {
    tracker.moveTo('FAILED', rootMessage(err));
    throw err;
  }
}
