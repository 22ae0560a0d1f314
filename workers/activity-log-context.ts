// Runs every activity inside the log context of its process (common/log-context.ts): each line it causes,
// the platform client's included, carries the process's workflowId and runId, as the SDK's own lines do.
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { logContext } from '../common/log-context.js';

export const activityLogContext: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute: (input, next) => {
      const { workflowExecution, activityType } = ctx.info;
      if (!workflowExecution) return next(input); // an activity run outside a workflow: no process to name
      return logContext.run({ workflowId: workflowExecution.workflowId, runId: workflowExecution.runId, activityType }, () => next(input));
    },
  },
});
