// What every log line written on behalf of a process carries: its process (workflow) ID and run ID. The
// worker runs each activity inside this context (workers/activity-log-context.ts), so the platform client's
// lines, and any other line an activity causes, name the process without being handed it.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface LogContext {
  workflowId: string;
  runId: string;
  activityType?: string;
}

export const logContext = new AsyncLocalStorage<LogContext>();

/** The fields pino mixes into every line: the process's IDs inside an activity, nothing elsewhere. */
export const logContextFields = (): Partial<LogContext> => logContext.getStore() ?? {};
