// Activity options for calls to the platform: Temporal's retry policy owns retries (5xx, 429, network).
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';

export const platformActivityOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    // No attempt limit: an outage delays the process, it does not end it. Non-retryable failures
    // (validation, auth, not found) are marked so by the activities and end it at once.
  },
};

/** Calls made for an API request: the caller is waiting, so they give up (and say why) within a minute. */
export const interactiveActivityOptions: ActivityOptions = {
  ...platformActivityOptions,
  scheduleToCloseTimeout: '1 minute',
  retry: { ...platformActivityOptions.retry, maximumAttempts: 5 },
};

/**
 * The same retries for short platform calls run as local activities: the call happens inside the workflow
 * task that asked for it, so an answer costs one task instead of three (schedule, run, resume). Retries
 * wait in the worker for up to a minute, then on durable timers.
 */
export const platformLocalActivityOptions: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: platformActivityOptions.retry,
  localRetryThreshold: '1 minute',
};
