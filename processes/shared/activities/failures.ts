// Turns typed platform errors into Temporal failures: retries stay with Temporal's retry policy,
// and a failure's `type` names the error class so workflows and the UI can tell them apart.
import { ApplicationFailure } from '@temporalio/common';
import { PlatformError, PlatformRateLimitError } from '../../../platform/errors.js';

export interface PlatformFailureDetails {
  httpStatus: number | undefined;
  code: string;
  details: unknown;
}

/** PlatformError → ApplicationFailure; anything else is returned unchanged (Temporal retries it). */
export function toActivityFailure(err: unknown): unknown {
  if (!(err instanceof PlatformError)) return err;
  const details: PlatformFailureDetails[] = [{ httpStatus: err.httpStatus, code: err.code, details: err.details }];
  const base = { type: err.name, message: err.message, details, cause: err };
  if (!err.retryable) return ApplicationFailure.create({ ...base, nonRetryable: true });
  // Honour the platform's Retry-After / E113 pause instead of the policy's backoff for this attempt.
  const delay = err instanceof PlatformRateLimitError && err.retryAfterMs !== undefined && err.retryAfterMs > 0 ? err.retryAfterMs : undefined;
  return ApplicationFailure.create({ ...base, nonRetryable: false, ...(delay === undefined ? {} : { nextRetryDelay: delay }) });
}

/** Wraps one activity function so whatever it throws goes through toActivityFailure. */
export function withFailureMapping<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (err) {
      throw toActivityFailure(err);
    }
  };
}

/** withFailureMapping applied to every function of an activity factory's result. */
export function withFailureMappingAll<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = withFailureMapping(fn as (...args: unknown[]) => Promise<unknown>);
  }
  return wrapped as T;
}
