// The platform's sender ID answers in the API's words, and the policy look-up the start checks (its route's
// and the onboarding's senderIds items) rely on.
import { PlatformConflictError, PlatformError, PlatformNotFoundError, PlatformValidationError } from '../../../platform/errors.js';
import { senderIdViolations, type Policy, type SenderIdClient } from '../../../platform/senderid/client.js';
import { ApiError, notFound, type ErrorDetail } from '../../errors.js';
import { fromViolations } from './inputs.js';

export const invalid = (details: ErrorDetail[]) => new ApiError(422, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);

/** A platform answer, in the API's words: 404, 409, 422, else 503 (the platform could not answer now). */
export function platformError(err: unknown, what: string): unknown {
  if (err instanceof ApiError || !(err instanceof PlatformError)) return err;
  if (err instanceof PlatformNotFoundError) return notFound(what);
  if (err instanceof PlatformConflictError) return new ApiError(409, 'not_allowed', err.message);
  if (err instanceof PlatformValidationError) {
    const vs = senderIdViolations(err);
    return vs.length ? invalid(fromViolations(vs)) : new ApiError(422, 'platform_rejected', err.message);
  }
  // Any other refusal no retry can change (a 4xx): the request, as the platform read it.
  if (!err.retryable && err.httpStatus !== undefined && err.httpStatus >= 400 && err.httpStatus < 500) return new ApiError(422, 'platform_rejected', err.message);
  return new ApiError(503, 'platform_unavailable', `the platform did not answer: ${err.message}`, undefined, 5_000);
}

export async function onPlatform<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw platformError(err, what);
  }
}

/** The policy, or undefined when the platform does not know it; other failures in the API's words (503, ...). */
export async function readPolicy(senderId: SenderIdClient, policyId: string): Promise<Policy | undefined> {
  try {
    return await onPlatform(`policy ${policyId}`, () => senderId.policyRequirements(policyId));
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return undefined;
    throw err;
  }
}
