// Rate limits by key, country and prefix (common/verification-limits.ts), durable: each limit and value is a bucket
// workflow (verification-rate:<task queue>:<limit>:<keyed hash of the value>) running the per-number guard's
// sliding window (workflows/verification/number-guard.ts), asked by update-with-start. Every API instance asks the
// same bucket, and a restart forgets nothing: the count lives in Temporal, not in this process. The value (an IP,
// a user ID) is only ever hashed: neither the bucket's ID nor its history nor a log line holds it.
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { SubjectHasher } from '../../../common/subject-hash.js';
import { bucketsOf, describeLimit, type LimitBucket, type RateLimit } from '../../../common/verification-limits.js';
import { admitUpdate, type AdmitOutcome, type AdmitRequest } from '../../../contracts/verification.js';
import { rateBucketWorkflowId } from '../../../contracts/verification-limits.js';
import type { numberGuard } from '../../../workflows/verification/number-guard.js';
import { ApiError } from '../../errors.js';
import { rateLimitRefusals } from '../../metrics/series.js';
import { callTemporal } from '../../processes/temporal-errors.js';

export class RateLimits {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    readonly limits: readonly RateLimit[],
    private readonly hash: SubjectHasher,
  ) {}

  bucketId(bucket: LimitBucket): string {
    return rateBucketWorkflowId(this.taskQueue, bucket.limit.id, this.hash(`rate-limit\n${bucket.limit.id}\n${bucket.value}`));
  }

  /**
   * Counts the start in every bucket it falls in, all at once; throws 429 rate_limited naming the first limit that
   * refuses it, with Retry-After (when the oldest start in that window leaves it). A refused start still counts in
   * the buckets that admitted it (it was an attempt); the caller asks these before the per-number guard, so a
   * refused start takes no admission there and starts nothing.
   */
  async admit(identity: string, keys: Record<string, string> | undefined, processId: string, methods: string[], deadline: number): Promise<void> {
    const buckets = bucketsOf(this.limits, identity, keys);
    if (!buckets.length) return;
    const answers = await Promise.all(buckets.map((b) => this.ask(b, processId, methods, deadline)));
    const refused = buckets.findIndex((_, i) => !answers[i]!.admitted);
    if (refused < 0) return;
    const { limit, field } = buckets[refused]!;
    const retryAfterMs = answers[refused]!.retryAfterMs ?? limit.windowMs;
    rateLimitRefusals.inc({ limit: limit.id, by: limit.key ?? (limit.country ? 'country' : 'prefix') });
    const message = `${describeLimit(limit)}; retry in ${Math.ceil(retryAfterMs / 1000)} s`;
    throw new ApiError(429, 'rate_limited', `${field}: ${message}; nothing was started or sent`, [{ field, rule: 'rate_limit', message }], retryAfterMs);
  }

  private ask(bucket: LimitBucket, processId: string, methods: string[], deadline: number): Promise<AdmitOutcome> {
    const { max, windowMs } = bucket.limit;
    const workflowId = this.bucketId(bucket);
    const admission = { processId, methods, limit: max, windowMs };
    return admitToGuard(this.client, { workflowId, taskQueue: this.taskQueue, keepMs: windowMs }, admission, {
      id: workflowId,
      what: 'rate limit bucket',
      deadline,
    });
  }
}

/**
 * Asks a numberGuard run for an admission, starting it if it is not running (update-with-start): the per-number guard
 * (service.ts) and each rate-limit bucket. `call` names the guard in a 404/409/504 and bounds the wait.
 */
export function admitToGuard(
  client: Client,
  guard: { workflowId: string; taskQueue: string; keepMs: number },
  admission: AdmitRequest,
  call: { id: string; what: string; deadline: number },
): Promise<AdmitOutcome> {
  return callTemporal(
    client,
    call.id,
    () =>
      client.workflow.executeUpdateWithStart(admitUpdate, {
        args: [admission],
        startWorkflowOperation: new WithStartWorkflowOperation<typeof numberGuard>('numberGuard', {
          workflowId: guard.workflowId,
          taskQueue: guard.taskQueue,
          args: [{ admissions: [], keepMs: guard.keepMs }],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      }),
    { what: call.what, waitMs: call.deadline - Date.now() },
  );
}
