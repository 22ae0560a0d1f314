// A store call inside a platform intake: when the database cannot answer, 503, so the platform delivers again.
import { ApiError } from '../errors.js';

export async function storeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new ApiError(503, 'campaign_store_unavailable', `the campaign store did not answer: ${(err as Error).message}`);
  }
}
