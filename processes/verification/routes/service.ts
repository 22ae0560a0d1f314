// Starts verification processes behind the geo permissions, the pumping guard, the rate limits and the per-number
// guard (all kept in the store, store/verification-*.ts), and finds them by identity or reference. Keeps the SMS
// receipts that only need recording in the store until a message to their process carries them.
import { createHash } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { FastifyBaseLogger } from 'fastify';
import { ulid } from 'ulid';
import type { Config } from '../../../common/config.js';
import { KIND, REFERENCE, STATE } from '../../../common/search-attributes.js';
import type { SubjectHasher } from '../../../common/subject-hash.js';
import { workflowIds, workflowTypeOf } from '../../kinds.js';
import {
  startedUpdate,
  REFERENCE_PREFIX,
  type CodeOptions,
  type CarriesReceipts,
  type SmsReceipt,
  type StartedOutcome,
  type VerificationInput,
  type VerificationMethod,
  type VerificationStep,
} from '../contract.js';
import { SDK_RESULT_WAIT_MS, sdkVerificationEventSignal, type SdkVerificationEvent, type SdkVerificationInput } from '../sdk-verification/contract.js';
import type { verification } from '../verification/workflow/verification.js';
import type { sdkVerification } from '../sdk-verification/workflow/sdk-verification.js';
import { AdmissionStore, GeoRuleStore, PumpingGuardStore, SmsReceiptStore, type Admission } from '../../../store/index.js';
import type { Sql } from '../../../store/sql.js';
import { ApiError } from '../../../api/errors.js';
import { processesStarted } from '../../../api/metrics/series.js';
import { callTemporal, DEFAULT_WAIT_MS } from '../../../api/processes/temporal-errors.js';
import { LIST_TIMEOUT_MS as LOOKUP_DEADLINE_MS, quote, visibilityFailure } from '../../../api/processes/find.js';
import { GeoRules } from './geo-rules.js';
import { PumpingGuards, type PumpingVerdict } from './pumping.js';
import { RateLimits } from './rate-limits.js';
import { required, storeCall } from './store-call.js';

export interface StartRequest {
  identity: string;
  steps: { method: VerificationMethod; timeoutSeconds?: number }[];
  reference?: string;
  custom?: string;
  language?: string;
  code?: CodeOptions;
  policy?: { codeExpirySeconds?: number; maxReportAttempts?: number; resendCooldownSeconds?: number; maxResends?: number };
  /** The caller's Idempotency-Key: a retried start with it reaches the same process and sends nothing again. */
  idempotencyKey?: string;
  /** The steps came from `body.fallback` (a refusal names the step's field), not `body.method`. */
  fallback?: boolean;
  /** The caller's rate-limit keys (`{ip, user, session, ...}`): each counted by the limits configured for its name. */
  rateLimits?: Record<string, string>;
}

export interface VerificationServiceOptions {
  /** How long a start (admission and platform start together) may take before it answers 504. */
  waitMs?: number;
}

export class VerificationService {
  readonly waitMs: number;
  /** The geo permissions every start (and every platform-initiated verification) is checked against first. */
  readonly geo: GeoRules;
  /** Limits by the caller's keys, by country and by prefix: a row per limit and value. */
  readonly limits: RateLimits;
  /** The SMS-pumping guard, a row per destination prefix. */
  readonly pumping: PumpingGuards;
  /** The per-number guard's and the rate limits' admissions. */
  private readonly admissions: () => AdmissionStore;
  private readonly stores?: { admissions: AdmissionStore; pumping: PumpingGuardStore; receipts: SmsReceiptStore };

  /** `sql`: the store (RELAYFLOW_DATABASE_URL); without it every start, look-up and guard route answers 503 naming it. */
  constructor(
    private readonly client: Client,
    private readonly config: Pick<Config, 'taskQueue' | 'processes'>,
    private readonly hash: SubjectHasher,
    sql: Sql | undefined,
    opts: VerificationServiceOptions = {},
  ) {
    this.waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
    const v = config.processes.verification;
    const { windowMs, minStarts, floor } = v.pumping;
    this.stores = sql && {
      admissions: new AdmissionStore(sql),
      pumping: new PumpingGuardStore(sql, { windowMs, minStarts, floor }),
      receipts: new SmsReceiptStore(sql),
    };
    this.admissions = required(this.stores?.admissions);
    this.geo = new GeoRules(required(sql && new GeoRuleStore(sql)), v.geo);
    this.limits = new RateLimits(this.admissions, v.rateLimits, hash);
    this.pumping = new PumpingGuards(required(this.stores?.pumping), v.pumping);
  }

  private get settings() {
    return this.config.processes.verification;
  }

  /** The per-number guard's key in the store: a keyed hash of the number, never the number. */
  guardKey(identity: string): string {
    return `number:${this.hash(identity)}`;
  }

  /** How long a number's admissions are kept for look-ups by identity: at least 30 min, and its window. */
  private get keepMs(): number {
    return Math.max(this.settings.guardWindowMs, 30 * 60_000);
  }

  /**
   * Drops what the guards no longer need: the rows of numbers and buckets idle past their keep time, the pumping
   * guards idle for a window (a block whose time is up recorded as expired first), decisions past 30 days. Every
   * instance sweeps (an idempotent DELETE); how many rows went.
   */
  async sweep(): Promise<number> {
    if (!this.stores) return 0;
    return (await this.stores.admissions.sweep()) + (await this.stores.pumping.sweep()) + (await this.stores.receipts.sweep());
  }

  /**
   * Records a Successful SMS receipt of a relayflow verification for its process, once per event ID: false when the API
   * has no store (the caller signals it instead). 503 when the store does not take it in time: the platform sends it again.
   */
  async recordReceipt(processId: string, receipt: Pick<SmsReceipt, 'eventId' | 'verificationId' | 'smsResult'>, log: FastifyBaseLogger): Promise<boolean> {
    const store = this.stores?.receipts;
    if (!store) return false;
    try {
      await storeCall('SMS receipt store', Date.now() + RECEIPT_STORE_MS, () => store.record(processId, receipt));
      return true;
    } catch (err) {
      log.warn({ err, processId, eventId: receipt.eventId }, 'SMS receipt not recorded; the platform will retry');
      throw new ApiError(503, 'unavailable', 'could not record the callback; retry later', undefined, 5_000);
    }
  }

  /**
   * Sends a message to the process carrying its receipts waiting in the store (`send` gets `{receipts}`, or nothing):
   * taken for this message alone while it is on its way, then marked handed over, or released when it failed. When
   * the store does not answer in time the message goes without them: the next one (or the process's own read before
   * it ends) carries them.
   */
  async carrying<T>(processId: string, log: Pick<FastifyBaseLogger, 'warn'>, send: (carried: CarriesReceipts) => Promise<T>): Promise<T> {
    const store = this.stores?.receipts;
    if (!store || !processId.startsWith('verification:')) return send({});
    const receipts = await storeCall('SMS receipt store', Date.now() + RECEIPT_STORE_MS, () => store.claim(processId, RECEIPT_LEASE_MS)).catch(
      (err: unknown) => {
        log.warn({ err, processId }, 'SMS receipts not read; a later message to the process carries them');
        return [];
      },
    );
    if (receipts.length === 0) return send({});
    const ids = receipts.map((r) => r.eventId);
    const settle = (what: 'handed' | 'release') =>
      storeCall('SMS receipt store', Date.now() + RECEIPT_STORE_MS, () => store[what](ids)).catch((err: unknown) => {
        // Either way a later message may carry them again (the process drops a repeat), or their lease runs out.
        log.warn({ err, processId, eventIds: ids }, `SMS receipts not marked ${what === 'handed' ? 'handed over' : 'released'}`);
      });
    let result: T;
    try {
      result = await send({ receipts });
    } catch (err) {
      await settle('release');
      throw err;
    }
    await settle('handed');
    return result;
  }

  /**
   * A running verification's details with the Successful receipt of its current SMS that its process has not been
   * handed yet: a view says the SMS was delivered once relayflow knows it, not only once the process does.
   */
  async withPendingReceipt(processId: string, details: Record<string, unknown>, log: Pick<FastifyBaseLogger, 'warn'>): Promise<Record<string, unknown>> {
    const current = (details.current as { verificationId?: string; method?: string } | undefined) ?? {};
    if (details.smsDelivery !== undefined || current.method !== 'sms' || !current.verificationId) return details;
    const store = this.stores?.receipts;
    if (!store) return details;
    const pending = await storeCall('SMS receipt store', Date.now() + RECEIPT_STORE_MS, () => store.pending(processId)).catch((err: unknown) => {
      log.warn({ err, processId }, "SMS receipts not read; the view shows the process's own details");
      return [];
    });
    const receipt = pending.filter((r) => r.verificationId === current.verificationId).at(-1);
    return receipt ? { ...details, smsDelivery: receipt.smsResult } : details;
  }

  /**
   * Admits a platform-initiated verification (its VerificationRequestEvent): false when the geo permissions refuse
   * its method for the number (counted, via `platform`) or the number is over its limit. 504 when the rules or the
   * guard do not answer by `deadline` (epoch ms), 503 when the store cannot answer (or the API has none).
   */
  async admit(
    identity: string,
    processId: string,
    methods: string[],
    deadline = Date.now() + this.waitMs,
  ): Promise<{ admitted: boolean; retryAfterMs?: number; refusedBy?: 'geo rules' | 'per-number guard' }> {
    if (await this.geo.refusal(identity, methods, deadline, 'platform')) return { admitted: false, refusedBy: 'geo rules' };
    const admission = await this.admitToGuard(identity, processId, methods, deadline);
    return admission.admitted ? admission : { ...admission, refusedBy: 'per-number guard' };
  }

  /** The per-number guard's admission: false when over the limit (the same processId again counts once). */
  private async admitToGuard(identity: string, processId: string, methods: string[], deadline: number): Promise<{ admitted: boolean; retryAfterMs?: number }> {
    const { guardMax, guardWindowMs } = this.settings;
    const store = this.admissions();
    const request = { key: this.guardKey(identity), processId, methods, limit: guardMax, windowMs: guardWindowMs, keepMs: this.keepMs };
    const { admitted, retryAfterMs } = await storeCall('per-number guard', deadline, () => store.admit(request));
    return { admitted, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }

  /**
   * The guards of a start, in order: the geo permissions, the pumping guard of the number's prefix, the rate limits,
   * the per-number guard. A refusal (403, 429) starts nothing and sends nothing; a geo refusal takes no admission
   * anywhere. The steps to run (the pumping guard may move them to another method) and the prefix's verdict.
   */
  private async admitStart(
    req: StartRequest,
    processId: string,
    requested: VerificationStep[],
    deadline: number,
  ): Promise<{ steps: VerificationStep[]; pumping: PumpingVerdict | undefined }> {
    const s = this.settings;
    let steps = requested;
    const methods = () => steps.map((st) => st.method);
    const refusal = await this.geo.refusal(req.identity, methods(), deadline, 'api');
    if (refusal) {
      const field = req.fallback ? `body.fallback.${refusal.step}.method` : 'body.method';
      throw new ApiError(403, 'geo_blocked', `${field}: ${refusal.message}; nothing was started or sent`, [
        { field, rule: 'geo_blocked', message: refusal.message },
      ]);
    }
    const pumping = await this.pumping.verdict(req.identity, methods(), deadline);
    if (pumping && !pumping.go) {
      if (this.pumping.settings.action === 'block') throw this.pumping.refusal(pumping);
      const method = this.pumping.moved(pumping);
      steps = [{ method, timeoutMs: s.stepTimeoutMs[method as keyof typeof s.stepTimeoutMs] ?? steps[0]!.timeoutMs }];
      const moved = await this.geo.refusal(req.identity, [method], deadline, 'api');
      if (moved)
        throw new ApiError(403, 'geo_blocked', `body.identity: moved to ${method} by the pumping guard, but ${moved.message}; nothing was started or sent`);
    }
    await this.limits.admit(req.identity, req.rateLimits, processId, deadline);
    const admission = await this.admitToGuard(req.identity, processId, methods(), deadline);
    if (!admission.admitted) {
      const minutes = Math.ceil(s.guardWindowMs / 60_000);
      throw new ApiError(
        429,
        'too_many_verifications',
        `body.identity: at most ${s.guardMax} verifications per number per ${minutes} min; try again later`,
        [{ field: 'body.identity', rule: 'rate_limit', message: `at most ${s.guardMax} verifications per ${minutes} min` }],
        admission.retryAfterMs,
      );
    }
    return { steps, pumping };
  }

  async start(req: StartRequest): Promise<{ processId: string; outcome: StartedOutcome }> {
    const keyed = req.idempotencyKey !== undefined;
    const id = keyed ? idOfKey(req.identity, req.idempotencyKey!) : ulid();
    const processId = workflowIds.verification(id);
    const s = this.settings;
    const requested: VerificationStep[] = req.steps.map((st) => ({
      method: st.method,
      timeoutMs: st.timeoutSeconds ? st.timeoutSeconds * 1000 : s.stepTimeoutMs[st.method],
    }));
    // One deadline for the whole start; the process learns it too, so it never sends after the caller gave up.
    const deadline = Date.now() + this.waitMs;
    const { steps, pumping } = await this.admitStart(req, processId, requested, deadline).catch((err: unknown) => {
      // Nothing was started yet: say so, rather than "read it later".
      if (err instanceof ApiError && err.statusCode === 504)
        throw new ApiError(504, err.code, `${err.message.replace(/; retry later$/, '')}; ${processId} was not started: retry later`, [
          { field: 'processId', rule: 'deadline', message: processId },
        ]);
      throw err;
    });
    const input: VerificationInput = {
      identity: req.identity,
      steps,
      policy: {
        codeExpiryMs: (req.policy?.codeExpirySeconds ?? s.codeExpiryMs / 1000) * 1000,
        maxReportAttempts: req.policy?.maxReportAttempts ?? s.maxReportAttempts,
        resendCooldownMs: (req.policy?.resendCooldownSeconds ?? s.resendCooldownMs / 1000) * 1000,
        maxResends: req.policy?.maxResends ?? s.maxResends,
      },
      ...(req.reference ? { reference: req.reference } : {}),
      ...(req.custom ? { custom: req.custom } : {}),
      ...(req.language ? { language: req.language } : {}),
      ...(req.code ? { code: req.code } : {}),
      platformReferencePrefix: `${REFERENCE_PREFIX}-${id}`,
      startBy: deadline,
      ...(pumping ? { pumpingGuardId: pumping.prefix } : {}),
    };
    const outcome = await callTemporal(
      this.client,
      processId,
      () =>
        this.client.workflow.executeUpdateWithStart(startedUpdate, {
          startWorkflowOperation: new WithStartWorkflowOperation<typeof verification>(workflowTypeOf('verification'), {
            workflowId: processId,
            taskQueue: this.config.taskQueue,
            args: [input],
            // Keyed: a retry joins the running process and gets its answer; once it has ended, the key is spent (409).
            workflowIdConflictPolicy: keyed ? 'USE_EXISTING' : 'FAIL',
            ...(keyed ? { workflowIdReusePolicy: 'REJECT_DUPLICATE' as const } : {}),
            // Listed PENDING at once (the process says STARTING until the platform accepts, within this call).
            typedSearchAttributes: [
              { key: KIND, value: 'verification' },
              { key: STATE, value: 'PENDING' },
              ...(req.reference ? [{ key: REFERENCE, value: req.reference }] : []),
            ],
          }),
        }),
      { what: 'verification process', waitMs: deadline - Date.now() },
    ).catch((err: unknown) => {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      throw new ApiError(
        409,
        'idempotency_key_spent',
        `header.idempotency-key: this key started ${processId}, which has ended: read it with GET /v1/verifications/{processId}`,
        [{ field: 'header.idempotency-key', rule: 'spent', message: processId }],
      );
    });
    // A fresh ID under conflict policy FAIL: an answer means this request created the process (a keyed retry
    // may count twice: the metric is a rate, not a ledger).
    processesStarted.inc({ kind: 'verification' });
    // Counted before the answer: a crash after it loses no start the caller was told of.
    if (pumping) await this.pumping.started(pumping);
    return { processId, outcome };
  }

  /**
   * Hands a callback of a verification relayflow did not start to its adopted process (`sdk-verification:<id>`),
   * started by this signal if it is the first (whichever event comes first). Resolves once Temporal has the event;
   * throws 503 when it could not take it by `deadline` (epoch ms), so the callback is not acknowledged. An event for
   * one that has ended is acknowledged and not recorded (the ID is never reused: a late repeat cannot start a second process).
   */
  async adopt(event: SdkVerificationEvent, log: FastifyBaseLogger, deadline = Date.now() + HAND_OVER_MS): Promise<void> {
    const processId = workflowIds['sdk-verification'](event.verificationId);
    const input: SdkVerificationInput = { verificationId: event.verificationId, resultWaitMs: SDK_RESULT_WAIT_MS };
    try {
      await this.client.withDeadline(deadline, () =>
        this.client.workflow.signalWithStart<typeof sdkVerification, [SdkVerificationEvent]>(workflowTypeOf('sdk-verification'), {
          workflowId: processId,
          taskQueue: this.config.taskQueue,
          args: [input],
          signal: sdkVerificationEventSignal,
          signalArgs: [event],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: KIND, value: 'sdk-verification' },
            { key: STATE, value: 'PENDING' },
          ],
        }),
      );
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        log.info({ processId, eventId: event.eventId }, 'callback for an adopted verification that has ended: not recorded');
        return;
      }
      log.warn({ err, processId, eventId: event.eventId }, 'verification callback not recorded; the platform will retry');
      throw new ApiError(503, 'unavailable', 'could not record the callback; retry later', undefined, 5_000);
    }
  }

  /** Recent verification processes of a number (the last 30 min, or the guard's window if longer), newest first. */
  async recent(identity: string): Promise<Admission[]> {
    const store = this.admissions();
    const admissions = await storeCall('per-number guard', Date.now() + this.waitMs, () => store.recent(this.guardKey(identity), this.keepMs));
    return admissions.filter((a) => a.processId.startsWith('verification:')).sort((a, b) => b.at - a.at);
  }

  /**
   * The newest verification process with this caller reference (visibility: eventually consistent), within
   * LOOKUP_DEADLINE_MS: 504 past it, 503 when Temporal is unreachable. The value is quoted as a literal.
   */
  async byReference(reference: string): Promise<string | undefined> {
    const query = `${KIND.name} = 'verification' AND ${REFERENCE.name} = ${quote(reference)}`;
    try {
      const page = await this.client.withDeadline(Date.now() + LOOKUP_DEADLINE_MS, () =>
        this.client.workflowService.listWorkflowExecutions({ namespace: this.client.options.namespace, query, pageSize: 1 }),
      );
      return page.executions?.[0]?.execution?.workflowId ?? undefined;
    } catch (err) {
      throw visibilityFailure(err, 'look the reference up', LOOKUP_DEADLINE_MS);
    }
  }
}

/** How long a callback's hand-over to its adopted process may take (Temporal unreachable: the client retries until then). */
const HAND_OVER_MS = 3_000;
/** How long a receipt's write or read may take: a read that takes longer leaves the receipts to a later message. */
const RECEIPT_STORE_MS = 1_000;
/** How long a message may carry receipts before another may (longer than an update's wait, DEFAULT_WAIT_MS). */
const RECEIPT_LEASE_MS = 30_000;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The process ID part for a keyed start: 26 Crockford base32 characters (a routing token's shape) from a hash
 * of the number and the key, so the same key for another number is another process.
 */
function idOfKey(identity: string, key: string): string {
  const digest = createHash('sha256').update(`${identity}\n${key}`).digest();
  return Array.from(digest.subarray(0, 26), (b, i) => CROCKFORD[i === 0 ? b % 8 : b % 32]).join('');
}
