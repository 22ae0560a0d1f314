// Deadlines of the verification's platform start, so a caller never waits on, or misses, an SMS: the start
// gives up before the API does (the API waits 20 s by default), and the first send never outlives the
// caller's own deadline (`startBy`).
import type { LocalActivityOptions } from '@temporalio/workflow';
import { platformLocalActivityOptions } from '../../../shared/workflow/activity-options.js';

/** Longest a platform start may take, retries included; then the process ends ERROR platform_unavailable. */
export const START_TIMEOUT_MS = 15_000;
/** Time kept back from the caller's deadline for the answer to travel back before the API gives up. */
export const START_MARGIN_MS = 500;
/** A first send bounded to less than this still gets this long (the caller then learns by a read). */
export const MIN_START_MS = 250;

const BACKOFF = { initialMs: 200, coefficient: 2, maxMs: 2_000 };

/** How many attempts fit in `ms` when each fails at once: the backoffs before the last must fit. */
export function attemptsWithin(ms: number): number {
  let attempts = 1;
  for (let waited = 0, next = BACKOFF.initialMs; waited + next <= ms; next = Math.min(BACKOFF.maxMs, next * BACKOFF.coefficient)) {
    waited += next;
    attempts += 1;
  }
  return attempts;
}

/**
 * Options for one start that must end within `withinMs`. The attempt limit, not only scheduleToClose, keeps
 * the bound: the worker does not end a local activity at its scheduleToClose while it waits between attempts.
 */
export function startActivityOptions(withinMs = START_TIMEOUT_MS): LocalActivityOptions {
  const ms = Math.max(MIN_START_MS, Math.min(START_TIMEOUT_MS, Math.round(withinMs)));
  return {
    ...platformLocalActivityOptions,
    scheduleToCloseTimeout: ms,
    startToCloseTimeout: ms,
    retry: { initialInterval: BACKOFF.initialMs, backoffCoefficient: BACKOFF.coefficient, maximumInterval: BACKOFF.maxMs, maximumAttempts: attemptsWithin(ms) },
  };
}
