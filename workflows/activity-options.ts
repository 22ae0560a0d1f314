// Activity options for calls to the platform: Temporal's retry policy owns retries (5xx, 429, network).
import type { ActivityOptions } from '@temporalio/workflow';

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
