// Rate limits by key, country and prefix (common/verification-limits.ts), kept in the store: each limit and value is
// a row of store/verification-admissions.ts (`rate:<limit>:<keyed hash of the value>`) with the per-number guard's
// sliding window, admitted by one atomic statement. Every API instance counts in the same row, and a restart forgets
// nothing. The value (an IP, a user ID) is only ever hashed: neither the row's key nor a log line holds it.
import type { SubjectHasher } from '../../../common/subject-hash.js';
import { bucketsOf, describeLimit, type LimitBucket, type RateLimit } from '../../../common/verification-limits.js';
import type { AdmissionStore, AdmitOutcome } from '../../../store/index.js';
import { ApiError } from '../../../api/errors.js';
import { rateLimitRefusals } from '../../../api/metrics/series.js';
import { storeCall } from './store-call.js';

export class RateLimits {
  constructor(
    private readonly store: () => AdmissionStore,
    readonly limits: readonly RateLimit[],
    private readonly hash: SubjectHasher,
  ) {}

  /** The bucket's key in the store: the limit and a keyed hash of the value. */
  bucketKey(bucket: LimitBucket): string {
    return `rate:${bucket.limit.id}:${this.hash(`rate-limit\n${bucket.limit.id}\n${bucket.value}`)}`;
  }

  /**
   * Counts the start in every bucket it falls in, all at once; throws 429 rate_limited naming the first limit that
   * refuses it, with Retry-After (when the oldest start in that window leaves it). A refused start still counts in
   * the buckets that admitted it (it was an attempt); the caller asks these before the per-number guard, so a
   * refused start takes no admission there and starts nothing. The same processId counts once (a keyed retry).
   */
  async admit(identity: string, keys: Record<string, string> | undefined, processId: string, deadline: number): Promise<void> {
    const buckets = bucketsOf(this.limits, identity, keys);
    if (!buckets.length) return;
    const store = this.store();
    const answers = await storeCall('rate limits', deadline, () => Promise.all(buckets.map((b) => this.ask(store, b, processId))));
    const refused = buckets.findIndex((_, i) => !answers[i]!.admitted);
    if (refused < 0) return;
    const { limit, field } = buckets[refused]!;
    const retryAfterMs = answers[refused]!.retryAfterMs ?? limit.windowMs;
    rateLimitRefusals.inc({ limit: limit.id, by: limit.key ?? (limit.country ? 'country' : 'prefix') });
    const message = `${describeLimit(limit)}; retry in ${Math.ceil(retryAfterMs / 1000)} s`;
    throw new ApiError(429, 'rate_limited', `${field}: ${message}; nothing was started or sent`, [{ field, rule: 'rate_limit', message }], retryAfterMs);
  }

  private ask(store: AdmissionStore, bucket: LimitBucket, processId: string): Promise<AdmitOutcome> {
    return store.admit({ key: this.bucketKey(bucket), processId, limit: bucket.limit.max, windowMs: bucket.limit.windowMs });
  }
}
