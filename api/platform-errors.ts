// The platform's answers in the API's words: the one mapping of platform errors to HTTP, used by every route
// that calls the platform while the caller waits (voice, sender ID, verification look-ups, the policy reads of
// starts). docs/errors.md states the same rules for callers. A route that calls the platform declares
// PLATFORM_STATUSES, so the document names each status one of these can become.
import { PlatformAuthError, PlatformConflictError, PlatformError, PlatformNotFoundError, PlatformValidationError } from '../platform/errors.js';
import { senderIdViolations } from '../platform/senderid/errors.js';
import { ApiError, errorResponses, invalid, notFound } from './errors.js';

/** 404, 409, 422 and 502; 503 (retry) is declared for every /v1 route (api/plugins/docs.ts). */
export const PLATFORM_STATUSES = [404, 409, 422, 502] as const;

/**
 * The schema of a route passed through to the platform: its tag and summary, its own parts (params, querystring,
 * body), its answers (`ok`) and the errors any such route may answer: the request's own (400 only where it takes input)
 * and the platform's in the API's words.
 */
export function passThroughSchema<P extends object, R extends object>(tag: string, summary: string, parts: P, ok: R) {
  const errors = Object.keys(parts).length ? errorResponses(400, 401, ...PLATFORM_STATUSES) : errorResponses(401, ...PLATFORM_STATUSES);
  // Typed as `ok` alone: the handlers return only those; the errors are thrown and answered by the error handler.
  return { tags: [tag], summary, ...parts, response: { ...ok, ...errors } as R };
}

/** Retry-After on a 503 when the platform did not say how long to wait. */
const RETRY_AFTER_MS = 5_000;

/**
 * - PlatformNotFoundError: 404 `not_found` (`what` was not found).
 * - PlatformConflictError: 409 `not_allowed` with the platform's message (the resource's state forbids it).
 * - PlatformValidationError: 422 `validation_failed` naming each field when the platform named them (sender
 *   ID policy violations), else 422 `platform_rejected` with the platform's message.
 * - PlatformAuthError: 502 `platform_auth_failed`. The platform answered, and refused relayflow's own
 *   credentials: a fault of this deployment's configuration, not of the caller's request (so not a 4xx), and
 *   no retry helps until the credentials are fixed (so not a 503, no Retry-After).
 * - Any other refusal no retry can change (a 4xx, e.g. a verification DENIED): 422 `platform_rejected`.
 * - Rate limits, 5xx, timeouts and network failures: 503 `platform_unavailable` with Retry-After (the
 *   platform's own when it gave one, else 5 s).
 * Anything that is not a PlatformError (an ApiError already, a bug) passes through unchanged.
 */
export function platformError(err: unknown, what: string): unknown {
  if (err instanceof ApiError || !(err instanceof PlatformError)) return err;
  if (err instanceof PlatformNotFoundError) return notFound(what);
  if (err instanceof PlatformConflictError) return new ApiError(409, 'not_allowed', err.message);
  if (err instanceof PlatformAuthError) return new ApiError(502, 'platform_auth_failed', `the platform refused relayflow's credentials: ${err.message}`);
  if (err instanceof PlatformValidationError) {
    const violations = senderIdViolations(err);
    if (violations.length) return invalid(violations.map((v) => ({ field: `body.${v.field}`, rule: v.rule, message: v.description })));
    return new ApiError(422, 'platform_rejected', err.message);
  }
  if (!err.retryable && err.httpStatus !== undefined && err.httpStatus >= 400 && err.httpStatus < 500)
    return new ApiError(422, 'platform_rejected', err.message);
  return new ApiError(503, 'platform_unavailable', `the platform did not answer: ${err.message}`, undefined, err.retryAfterMs ?? RETRY_AFTER_MS);
}

/** `fn`'s answer, or its platform error in the API's words (platformError). */
export async function onPlatform<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw platformError(err, what);
  }
}

/**
 * The platform's IDs go into its paths, where `.` and `..` would name another resource once the URL is
 * normalised (a participant `.` would be the whole conference, a policy `..` the list): no resource has such an ID.
 */
export function platformIds(ids: Record<string, string>): void {
  for (const [what, id] of Object.entries(ids)) if (id === '.' || id === '..') throw notFound(`${what} ${id}`);
}
