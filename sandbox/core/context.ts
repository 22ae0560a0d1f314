// The state of one sandbox instance, shared by the core pipeline, the control routes and every area.
import { randomBytes } from 'node:crypto';
import { AccountDirectory } from './accounts.js';
import { AreaLinks } from './area-links.js';
import { CallbackHub, EVENT_CALLBACKS, SandboxCallbacks, type CallbackFate, type CallbackHubOptions } from './callback-hub.js';
import { DueJobs } from './due-jobs.js';
import { Timers } from './timers.js';
import { CallbackDispatcher } from './callbacks.js';
import { FaultStore, LatencyStore } from './faults.js';
import { persistedArea, type KeptArea } from './kept.js';
import type { ResolvedSandboxOptions } from './options.js';
import type { PersistedArea } from './persistence.js';
import { ProjectAccess } from './project-access.js';
import { RateLimiter } from './rate-limit.js';
import { RequestLog } from './request-log.js';

/** A piece of an area's state or machinery, handed to the core with SandboxContext.own. */
export interface AreaPart {
  /** POST /_sandbox/reset: forget everything, back to the options' defaults. */
  reset?(): void;
  /** The sandbox is closing: stop whatever runs on its own (timers, deliveries); what is pending stays for the final save. */
  close?(): void;
}

export interface AreaParts {
  /** Reset, and closed, in this order. */
  parts: readonly AreaPart[];
  /** What a sandbox with a dataDir keeps across restarts (kept.ts, persistence.ts); without one, nothing calls it. */
  kept?: KeptArea;
}

export class SandboxContext {
  readonly accounts: AccountDirectory;
  /**
   * Per-instance HS256 key: tokens from another sandbox are rejected. A sandbox with a dataDir keeps it across
   * restarts (the 'tokens' state), so tokens issued before a restart still verify.
   */
  readonly tokenSecret: Uint8Array = randomBytes(32);
  readonly requests = new RequestLog();
  readonly faults = new FaultStore();
  readonly latency = new LatencyStore();
  readonly rateLimiter = new RateLimiter();
  /** Projects a key may use besides its own (its subprojects, once usable); the OAuth guard asks. */
  readonly projectAccess = new ProjectAccess();
  /** What an area reads from another (area-links.ts). */
  readonly links = new AreaLinks();
  /** Every callback goes out through here (the sandbox-wide drop and duplicate faults); areas' hubs included. */
  readonly callbacks: SandboxCallbacks;
  private readonly parts: AreaPart[] = [];
  private readonly persisted: PersistedArea[] = [];
  private readonly sleepers = new Set<() => void>();

  constructor(readonly options: ResolvedSandboxOptions) {
    this.accounts = new AccountDirectory(options.accounts);
    this.callbacks = new SandboxCallbacks(new CallbackDispatcher({ logger: options.logger }));
    this.addPersisted(
      persistedArea({
        name: 'tokens',
        parts: {
          tokenSecret: {
            save: () => Buffer.from(this.tokenSecret).toString('base64'),
            load: (saved) => {
              const secret = Buffer.from(String(saved), 'base64');
              if (secret.length !== this.tokenSecret.length) throw new Error('tokenSecret has the wrong length');
              this.tokenSecret.set(secret);
            },
          },
        },
      }),
    );
  }

  /**
   * The one way an area hands its parts to the core: their reset() on POST /_sandbox/reset, their close() when
   * the sandbox closes, and what it keeps across restarts. Faults, the request log and callbacks in flight are
   * never kept.
   */
  own({ parts, kept }: AreaParts): void {
    this.parts.push(...parts);
    if (kept) this.addPersisted(persistedArea(kept));
  }

  /** An area's callback hub, handing its callbacks on to the sandbox's. Reset it with the area's parts. */
  callbackHub<F extends CallbackFate>(opts: CallbackHubOptions): CallbackHub<F> {
    return new CallbackHub<F>(this.callbacks, opts);
  }

  /**
   * The machinery of an area whose resources change later (reviews) and announce it by callbacks: its timers, due
   * jobs and event hub (EVENT_CALLBACKS), already handed over for reset and close (the area's other parts after).
   */
  resourceEvents<F extends CallbackFate>(area: string): { timers: Timers; jobs: DueJobs; callbacks: CallbackHub<F> } {
    const timers = new Timers();
    const jobs = new DueJobs(timers);
    const callbacks = this.callbackHub<F>({ area, timers, ...EVENT_CALLBACKS });
    this.own({ parts: [timers, jobs, callbacks] });
    return { timers, jobs, callbacks };
  }

  private addPersisted(area: PersistedArea): void {
    if (this.persisted.some((a) => a.name === area.name)) throw new Error(`sandbox: persisted state ${area.name} registered twice`);
    this.persisted.push(area);
  }

  get persistedAreas(): readonly PersistedArea[] {
    return this.persisted;
  }

  reset(): void {
    this.faults.clear();
    this.latency.clear();
    this.requests.clear();
    this.rateLimiter.clear();
    this.callbacks.reset();
    for (const part of this.parts) part.reset?.();
  }

  /** A delay that close() cuts short, so injected latency never holds up shutdown. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  close(): void {
    for (const part of this.parts) part.close?.();
    this.callbacks.close();
    for (const done of [...this.sleepers]) done();
  }
}
