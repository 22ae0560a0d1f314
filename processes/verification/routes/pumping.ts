// The SMS-pumping guard as the API applies it: before a start, the guard of the number's prefix is read (kept
// RELAYFLOW_VERIFICATION_PUMPING_CACHE_MS per prefix, 1 s) and a blocked prefix refuses the start (429
// pumping_suspected, Retry-After at the block's end) or moves it to the configured method. Each start let through
// and each correct code (the report's answer names the prefix) is counted in the store before the answer goes out
// (store/verification-pumping.ts: one transaction on the prefix's row, where the decision to block is made), so
// every instance counts in the same guard and a crash loses no count that was answered. A start may slip through
// within another instance's cache time of a block: the guard is about volume, not one start.
import type { FastifyBaseLogger } from 'fastify';
import type { PumpingSettings } from '../../../common/config.js';
import { pumpingPrefixOf } from '../../../common/verification-pumping.js';
import type { VerificationMethod } from '../contract.js';
import type { PumpingGuardStore, PumpingGuardView } from '../../../store/index.js';
import { ApiError } from '../../../api/errors.js';
import { pumpingDecisions } from '../../../api/metrics/series.js';
import { storeCall } from './store-call.js';

/** Prefixes whose reads an instance keeps; past it the oldest half is dropped. */
const CACHE_ENTRIES = 10_000;
/** Methods that cost a message or a call per start (a Data verification costs none: not guarded). */
const GUARDED: ReadonlySet<string> = new Set(['sms', 'flashcall', 'callout', 'whatsapp']);
/** How long a count may take once the process has started (its answer waits for it). */
const COUNT_WAIT_MS = 2_000;

export type PumpingVerdict = { prefix: string } & ({ go: true } | { go: false; until: number; view: PumpingGuardView });

export class PumpingGuards {
  private readonly cache = new Map<string, { view?: PumpingGuardView; readAt: number }>();
  private readonly reading = new Map<string, Promise<PumpingGuardView | undefined>>();

  constructor(
    private readonly store: () => PumpingGuardStore,
    readonly settings: PumpingSettings,
  ) {}

  /** Where a count that could not be made says so (the routes give it the app's logger). */
  log?: FastifyBaseLogger;

  prefixOf(identity: string): string {
    return pumpingPrefixOf(identity, this.settings.prefixDigits);
  }

  /** Whether a start of these methods to this number may go (undefined: the guard is off or none of them is guarded). */
  async verdict(identity: string, methods: readonly string[], deadline: number): Promise<PumpingVerdict | undefined> {
    if (!this.settings.enabled || !methods.some((m) => GUARDED.has(m))) return undefined;
    const prefix = this.prefixOf(identity);
    const view = await this.cached(prefix, deadline);
    const until = view?.blocked?.until;
    if (view && until !== undefined && until > Date.now()) return { prefix, go: false, until, view };
    return { prefix, go: true };
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

  /** Counts a start let through (it may block the prefix: this instance then refuses the next start at once). Never throws. */
  async started(v: PumpingVerdict): Promise<void> {
    const readAt = Date.now();
    const view = await this.count(v.prefix, 'start');
    if (view) this.remember(v.prefix, view, readAt);
  }

  /** Counts a correct code of a verification to `prefix` (a SUCCESSFUL report's answer names it). Never throws. */
  async succeeded(prefix: string): Promise<void> {
    await this.count(prefix, 'success');
  }

  private async count(prefix: string, what: 'start' | 'success'): Promise<PumpingGuardView | undefined> {
    try {
      const store = this.store();
      return await storeCall('pumping guard', Date.now() + COUNT_WAIT_MS, () => store.count(prefix, what));
    } catch (err) {
      // The start went (or the code was right) whatever the guard: its answer is not turned into an error for one count.
      this.log?.warn({ err, prefix, what }, 'the pumping guard did not count');
      return undefined;
    }
  }

  /** The guard's view now (undefined: no start to the prefix in the last window). */
  async read(prefix: string, deadline: number): Promise<PumpingGuardView | undefined> {
    const readAt = Date.now();
    const store = this.store();
    const view = await storeCall('pumping guard', deadline, () => store.read(prefix));
    this.remember(prefix, view, readAt);
    return view;
  }

  /** Lifts a block (undefined when the prefix has no guard); this instance applies it at once, others within the cache time. */
  async lift(prefix: string, actor: string | undefined, note: string | undefined, deadline: number): Promise<PumpingGuardView | undefined> {
    const readAt = Date.now();
    const store = this.store();
    const view = await storeCall('pumping guard', deadline, () => store.lift(prefix, actor, note));
    if (!view) return undefined;
    pumpingDecisions.inc({ prefix, decision: 'lifted' });
    this.remember(prefix, view, readAt);
    return view;
  }

  /**
   * The prefix's view as this instance last read it, read again once older than the cache time (one read, shared by
   * the starts that need it), so a block or a lift made through another instance applies here within that time. When
   * that read fails, the last view read is used (and the failure logged); with none, the read's 503 or 504.
   */
  private async cached(prefix: string, deadline: number): Promise<PumpingGuardView | undefined> {
    const hit = this.cache.get(prefix);
    if (hit && Date.now() - hit.readAt < this.settings.cacheMs) return hit.view;
    let reading = this.reading.get(prefix);
    if (!reading) {
      reading = this.read(prefix, deadline).finally(() => this.reading.delete(prefix));
      this.reading.set(prefix, reading);
    }
    try {
      return await reading;
    } catch (err) {
      if (!hit) throw err;
      this.log?.warn({ err, prefix }, 'the pumping guard could not be read; the last view read is used');
      return hit.view;
    }
  }

  private remember(prefix: string, view: PumpingGuardView | undefined, readAt: number): void {
    const hit = this.cache.get(prefix);
    if (hit && hit.readAt > readAt) return;
    if (this.cache.size >= CACHE_ENTRIES) [...this.cache.keys()].slice(0, CACHE_ENTRIES / 2).forEach((k) => this.cache.delete(k));
    this.cache.set(prefix, { ...(view ? { view } : {}), readAt });
  }
}
