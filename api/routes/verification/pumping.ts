// The SMS-pumping guard as the API applies it: before a start, the guard of the number's prefix is read (a query,
// kept RELAYFLOW_VERIFICATION_PUMPING_CACHE_MS per prefix, 1 s) and a blocked prefix refuses the start (429
// pumping_suspected, Retry-After at the block's end) or moves it to the configured method; the starts let through
// and the correct codes (the report's answer names the guard) are told to the guard in batches every 250 ms (a
// signal-with-start per guard, not per start: a crash of an instance loses at most that much of its counts). The
// counting and the decision to block are the guard's (workflows/verification/pumping-guard.ts): durable, shared by
// every instance. A start may slip through within the cache time of a block: the guard is about volume, not one start.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { PumpingSettings } from '../../../common/config.js';
import { pumpingPrefixOf } from '../../../common/verification-pumping.js';
import {
  liftPumpingUpdate,
  pumpingGuardWorkflowId,
  pumpingQuery,
  pumpingStartSignal,
  pumpingSuccessSignal,
  type PumpingCount,
  type PumpingGuardState,
  type PumpingGuardView,
} from '../../../contracts/verification-limits.js';
import type { VerificationMethod } from '../../../contracts/verification.js';
import type { verificationPumpingGuard } from '../../../workflows/verification/pumping-guard.js';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../../errors.js';
import { pumpingDecisions } from '../../metrics/series.js';
import { callTemporal } from '../../processes/temporal-errors.js';

/**
 * How long an instance gathers counts before it tells the guards: the most a crash of the instance loses, and about
 * how much later a block comes than the starts that cause it.
 */
const FLUSH_MS = 250;
/** Prefixes whose reads an instance keeps; past it the oldest half is dropped. */
const CACHE_ENTRIES = 10_000;
/** Methods that cost a message or a call per start (a Data verification costs none: not guarded). */
const GUARDED: ReadonlySet<string> = new Set(['sms', 'flashcall', 'callout', 'whatsapp']);

export type PumpingVerdict = { prefix: string; guardId: string } & ({ go: true } | { go: false; until: number; view: PumpingGuardView });

export class PumpingGuards {
  private readonly cache = new Map<string, { view?: PumpingGuardView; readAt: number }>();
  private readonly reading = new Map<string, Promise<PumpingGuardView | undefined>>();
  /** Counted here and not yet told to the guards, by guard ID. */
  private readonly pending = new Map<string, { prefix: string; starts: number; successes: number }>();
  private flushTimer?: NodeJS.Timeout;

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    readonly settings: PumpingSettings,
  ) {}

  /** Where a guard that could not be told says so (the routes give it the app's logger). */
  log?: FastifyBaseLogger;

  guardId(prefix: string): string {
    return pumpingGuardWorkflowId(this.taskQueue, prefix);
  }

  prefixOf(identity: string): string {
    return pumpingPrefixOf(identity, this.settings.prefixDigits);
  }

  /** Whether a start of these methods to this number may go (undefined: the guard is off or none of them is guarded). */
  async verdict(identity: string, methods: readonly string[], deadline: number): Promise<PumpingVerdict | undefined> {
    if (!this.settings.enabled || !methods.some((m) => GUARDED.has(m))) return undefined;
    const prefix = this.prefixOf(identity);
    const guardId = this.guardId(prefix);
    const view = await this.cached(prefix, deadline);
    const until = view?.blocked?.until;
    if (view && until !== undefined && until > Date.now()) return { prefix, guardId, go: false, until, view };
    return { prefix, guardId, go: true };
  }

  /** The 429 a start to a blocked prefix gets (counted). */
  refusal(v: PumpingVerdict & { go: false }): ApiError {
    pumpingDecisions.inc({ prefix: v.prefix, decision: 'refused' });
    const b = v.view.blocked!;
    const message =
      `the pumping guard blocked numbers beginning +${v.prefix}: ${b.successes} of ${b.starts} verifications reported a code, ` +
      `under the floor of ${Math.round(v.view.thresholds.floor * 100)}%`;
    return new ApiError(
      429,
      'pumping_suspected',
      `body.identity: ${message}; nothing was started or sent; an operator can lift it (POST /v1/verification-pumping-guards/${v.prefix}/lift)`,
      [{ field: 'body.identity', rule: 'pumping_guard', message }],
      v.until - Date.now(),
    );
  }

  /** Counts a start to a blocked prefix moved to the configured method. */
  moved(v: PumpingVerdict): VerificationMethod {
    pumpingDecisions.inc({ prefix: v.prefix, decision: 'moved' });
    return this.settings.action as VerificationMethod;
  }

  /** Counts a start let through; told to the guard with the others of its prefix within FLUSH_MS. */
  started(v: PumpingVerdict): void {
    this.add(v.guardId, v.prefix, 'starts');
  }

  /** Counts a correct code for the guard a SUCCESSFUL report's answer named; told within FLUSH_MS. */
  succeeded(guardId: string): void {
    this.add(guardId, guardId.slice(guardId.lastIndexOf(':') + 1), 'successes');
  }

  /**
   * Tells every guard what this instance counted since the last time: one signal per guard and kind, however many
   * starts (a signal per start cost the worker a workflow task per verification). Never throws; a guard that could
   * not be told is logged (its counts are lost: the guard judges volume, not single starts).
   */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = [...this.pending.entries()];
    this.pending.clear();
    const { windowMs, minStarts, floor } = this.settings;
    await Promise.all(
      batch.map(async ([guardId, { prefix, starts, successes }]) => {
        try {
          if (starts) {
            const initial: PumpingGuardState = { prefix, windowMs, thresholds: { minStarts, floor }, slots: [], decisions: [] };
            await this.client.workflow.signalWithStart<typeof verificationPumpingGuard, [PumpingCount]>('verificationPumpingGuard', {
              workflowId: guardId,
              taskQueue: this.taskQueue,
              args: [initial],
              signal: pumpingStartSignal,
              signalArgs: [{ count: starts }],
            });
          }
          if (successes) await this.client.workflow.getHandle(guardId).signal(pumpingSuccessSignal, { count: successes });
        } catch (err) {
          // Ended (idle for a window) before a success reached it: that success no longer changes a decision.
          if (!(err instanceof WorkflowNotFoundError))
            this.log?.warn({ err, guard: guardId, starts, successes }, 'the pumping guard was not told of its counts');
        }
      }),
    );
  }

  private add(guardId: string, prefix: string, what: 'starts' | 'successes'): void {
    const entry = this.pending.get(guardId) ?? { prefix, starts: 0, successes: 0 };
    entry[what] += 1;
    this.pending.set(guardId, entry);
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.flushTimer.unref();
    }
  }

  /** The guard's view now (undefined: no start to the prefix in the last window). */
  async read(prefix: string, deadline: number): Promise<PumpingGuardView | undefined> {
    const readAt = Date.now();
    const guardId = this.guardId(prefix);
    const view = await callTemporal(
      this.client,
      guardId,
      async () => {
        try {
          return await this.client.workflow.getHandle(guardId).query(pumpingQuery);
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) return undefined;
          throw err;
        }
      },
      { what: 'pumping guard', waitMs: deadline - Date.now() },
    );
    this.remember(prefix, view, readAt);
    return view;
  }

  /** Lifts a block (404 when the prefix has no guard); this instance applies it at once, others within the cache time. */
  async lift(prefix: string, actor: string | undefined, note: string | undefined, deadline: number): Promise<PumpingGuardView> {
    const readAt = Date.now();
    const guardId = this.guardId(prefix);
    const view = await callTemporal(
      this.client,
      guardId,
      () => this.client.workflow.getHandle(guardId).executeUpdate(liftPumpingUpdate, { args: [{ ...(actor ? { actor } : {}), ...(note ? { note } : {}) }] }),
      { what: 'pumping guard', waitMs: deadline - Date.now() },
    );
    pumpingDecisions.inc({ prefix, decision: 'lifted' });
    this.remember(prefix, view, readAt);
    return view;
  }

  /**
   * The prefix's view as this instance last read it. Past the cache time one read goes out (shared by the starts that
   * need it); a start with a view in hand does not wait for it (the read refreshes the cache for the next ones), so
   * the guard costs a start nothing but the first read of its prefix. A query waits behind the guard's own work, and
   * a burst of starts to one prefix would otherwise wait behind their guard's signals.
   */
  private async cached(prefix: string, deadline: number): Promise<PumpingGuardView | undefined> {
    const hit = this.cache.get(prefix);
    if (hit && Date.now() - hit.readAt < this.settings.cacheMs) return hit.view;
    let reading = this.reading.get(prefix);
    if (!reading) {
      reading = this.read(prefix, deadline).finally(() => this.reading.delete(prefix));
      this.reading.set(prefix, reading);
    }
    if (hit) {
      reading.catch((err: unknown) => this.log?.warn({ err, prefix }, 'the pumping guard could not be read'));
      return hit.view;
    }
    return reading;
  }

  private remember(prefix: string, view: PumpingGuardView | undefined, readAt: number): void {
    const hit = this.cache.get(prefix);
    if (hit && hit.readAt > readAt) return;
    if (this.cache.size >= CACHE_ENTRIES) [...this.cache.keys()].slice(0, CACHE_ENTRIES / 2).forEach((k) => this.cache.delete(k));
    this.cache.set(prefix, { ...(view ? { view } : {}), readAt });
  }
}
