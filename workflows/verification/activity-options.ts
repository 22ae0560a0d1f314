// Deadlines of the verification's platform start, so a caller never waits on, or misses, an SMS: the start
// gives up before the API does (the API waits 20 s by default), and the first send never outlives the
// caller's own deadline (`startBy`).
import type { LocalActivityOptions } from '@temporalio/workflow';
import { platformLocalActivityOptions } from '../shared/activity-options.js';

/** Longest a platform start may take, retries included; then the process ends ERROR platform_unavailable. */
export const START_TIMEOUT_MS = 15_000;
/** Time kept back from the caller's deadline for the answer to travel back before the API gives up. */
export const START_MARGIN_MS = 500;
/** A first send bounded to less than this still gets this long (the caller is then told by a read, not the start). */
export const MIN_START_MS = 250;

/** Options for one start that must end within `withinMs`. */
export function startActivityOptions(withinMs = START_TIMEOUT_MS): LocalActivityOptions {
  const ms = Math.max(MIN_START_MS, Math.min(START_TIMEOUT_MS, withinMs));
  return { ...platformLocalActivityOptions, scheduleToCloseTimeout: ms, startToCloseTimeout: Math.min(10_000, ms) };
}
