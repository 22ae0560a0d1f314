// The platform's answers on the voice pass-through routes, in the API's words. Every route that calls the
// platform declares PLATFORM_STATUSES, so the document names each status one of these can become.
import { PlatformAuthError, PlatformError, PlatformNotFoundError, PlatformValidationError } from '../../../platform/errors.js';
import { ApiError, notFound } from '../../errors.js';

/** 404 not found, 422 refused, 502 relayflow's credentials refused; 503 (retry) is declared for every /v1 route. */
export const PLATFORM_STATUSES = [404, 422, 502] as const;

const RETRY_AFTER_MS = 5_000;

/**
 * - PlatformNotFoundError: 404 (`what` was not found).
 * - PlatformValidationError, and any other 4xx no retry changes: 422 `platform_rejected` with the platform's message.
 * - PlatformAuthError: 502 `platform_auth_failed`. Not 503: the platform answered, it refused relayflow's own
 *   credentials (a configuration fault of this deployment, not of the request); retrying will not help until
 *   the credentials are fixed, so no Retry-After.
 * - Rate limits, 5xx, timeouts and network failures: 503 `platform_unavailable` with Retry-After.
 */
export function platformError(err: unknown, what: string): unknown {
  if (err instanceof ApiError || !(err instanceof PlatformError)) return err;
  if (err instanceof PlatformNotFoundError) return notFound(what);
  if (err instanceof PlatformAuthError) return new ApiError(502, 'platform_auth_failed', `the platform refused relayflow's credentials: ${err.message}`);
  if (err instanceof PlatformValidationError) return new ApiError(422, 'platform_rejected', err.message);
  if (!err.retryable && err.httpStatus !== undefined && err.httpStatus >= 400 && err.httpStatus < 500) return new ApiError(422, 'platform_rejected', err.message);
  return new ApiError(503, 'platform_unavailable', `the platform did not answer: ${err.message}`, undefined, err.retryAfterMs ?? RETRY_AFTER_MS);
}

/**
 * The platform's IDs go into its paths, where `.` and `..` would name another resource once the URL is
 * normalised (a participant `.` would be the whole conference): no call or conference has such an ID.
 */
export function platformIds(ids: Record<string, string>): void {
  for (const [what, id] of Object.entries(ids)) if (id === '.' || id === '..') throw notFound(`${what} ${id}`);
}

export async function onPlatform<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw platformError(err, what);
  }
}
