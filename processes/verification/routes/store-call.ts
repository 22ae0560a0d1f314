// The verification guards' calls to the store (the per-number guard, the rate limits, the pumping guard, the geo
// rules): each bounded by the caller's deadline (504 past it: the statement may still land, as an attempt), 503 when
// the database does not answer, and 503 naming RELAYFLOW_DATABASE_URL when the API has no store at all.
import { ApiError, storeRequired } from '../../../api/errors.js';

const STORE_RETRY_AFTER_MS = 5_000;

/** The store, or the 503 of an API started without one. */
export const required = <T>(store: T | undefined) =>
  storeRequired(
    store,
    'verification_store_unavailable',
    'verifications need the SQL store (the per-number guard, rate limits, pumping guard and geo rules are kept there)',
    'the API',
  );

/** Runs one store call for `what` (named in a 504 or 503) until `deadline` (epoch ms). */
export async function storeCall<R>(what: string, deadline: number, fn: () => Promise<R>): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError(504, 'store_timeout', `the ${what} did not answer in time; retry later`)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([fn(), late]);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // The database's own error goes to the log with the 503 (api/plugins/error-handler.ts), not to the caller.
    throw Object.assign(
      new ApiError(
        503,
        'verification_store_unavailable',
        `the ${what} could not be read: the database did not answer; retry later`,
        undefined,
        STORE_RETRY_AFTER_MS,
      ),
      { cause: err },
    );
  } finally {
    clearTimeout(timer);
  }
}
