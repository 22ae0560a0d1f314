// Subproject provisioning: create a subproject under its parent and finish only once the parent can use it.
// The spec (part E) says only that a subproject "can be used with its parent project up to 30 seconds after
// creation", and names no signal of it: READY is that bound, counted by a durable timer from the creation.
import { proxyActivities, sleep } from '@temporalio/workflow';
import {
  SUBPROJECT_USABLE_AFTER_MS,
  type EnsureSubprojectResult,
  type SubprojectActivities,
  type SubprojectDetails,
  type SubprojectInput,
  type SubprojectResult,
  type SubprojectState,
} from '../contract.js';
import { platformActivityOptions } from '../../../shared/workflow/activity-options.js';
import { rootMessage } from '../../../shared/workflow/failure-text.js';
import { trackProcess, type ProcessState } from '../../../shared/workflow/process-state.js';

const { ensureSubproject } = proxyActivities<SubprojectActivities>(platformActivityOptions);

type Tracker = ProcessState<SubprojectState, SubprojectDetails>;

export async function subprojectProvisioning(input: SubprojectInput): Promise<SubprojectResult> {
  const { parentProjectId, displayName } = input;
  const tracker = trackProcess<SubprojectState, SubprojectDetails>('subproject', 'CREATING', {
    parentProjectId,
    displayName,
  });

  try {
    // Workflow time (replay-safe): no later than the creation, whatever this attempt finds.
    const createStartedAt = Date.now();
    const sub = await ensureSubproject({ parentProjectId, displayName });
    tracker.update({ subprojectId: sub.projectId, createTime: sub.createTime });
    const how = sub.created ? 'created on the platform' : 'found an existing subproject with this name';
    await waitUntilUsable(tracker, sub, createStartedAt, input.usableAfterMs ?? SUBPROJECT_USABLE_AFTER_MS, how);
    tracker.moveTo('READY');
    const d = tracker.status.details;
    return {
      parentProjectId,
      displayName,
      subprojectId: sub.projectId,
      createTime: sub.createTime,
      ...(d.usableAt ? { usableAt: d.usableAt, usableFrom: d.usableFrom } : {}),
    };
  } catch (err) {
    tracker.moveTo('FAILED', rootMessage(err));
    throw err;
  }
}

/**
 * One durable timer until createTime + usableAfterMs. The platform's createTime counts; a subproject this
 * process created is not taken as older than the start of its create (a platform clock behind ours would
 * otherwise shorten the wait). Without a createTime: from when the create answered (ours, never too early).
 */
async function waitUntilUsable(tracker: Tracker, sub: EnsureSubprojectResult, createStartedAt: number, usableAfterMs: number, how: string) {
  const platformTime = Date.parse(sub.createTime);
  const from = Number.isNaN(platformTime) ? Date.now() : sub.created ? Math.max(platformTime, createStartedAt) : platformTime;
  const usableAt = new Date(from + usableAfterMs).toISOString();
  tracker.update({ usableAt, usableFrom: Number.isNaN(platformTime) ? 'create-answered' : 'createTime' });
  tracker.moveTo('WAITING_UNTIL_USABLE', `${how}; usable with its parent from ${usableAt}`);
  const left = from + usableAfterMs - Date.now();
  if (left > 0) await sleep(left);
}
