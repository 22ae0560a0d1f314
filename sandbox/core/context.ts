// The state of one sandbox instance, shared by the core pipeline, the control routes and every area.
import { randomBytes } from 'node:crypto';
import { AccountDirectory } from './accounts.js';
import { CallbackDispatcher } from './callbacks.js';
import { CallbackFaults, FaultStore, LatencyStore } from './faults.js';
import type { ResolvedSandboxOptions } from './options.js';
import type { PersistedArea } from './persistence.js';
import { RateLimiter } from './rate-limit.js';
import { RequestLog } from './request-log.js';

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
  readonly callbackFaults = new CallbackFaults();
  readonly rateLimiter = new RateLimiter();
  readonly callbacks: CallbackDispatcher;
  private readonly resetHooks: (() => void)[] = [];
  private readonly persisted: PersistedArea[] = [];
  private readonly sleepers = new Set<() => void>();

  constructor(readonly options: ResolvedSandboxOptions) {
    this.accounts = new AccountDirectory(options.accounts);
    this.callbacks = new CallbackDispatcher({ faults: this.callbackFaults, logger: options.logger });
    this.persist({
      name: 'tokens',
      save: () => ({ tokenSecret: Buffer.from(this.tokenSecret).toString('base64') }),
      load: (state) => {
        const secret = Buffer.from(String((state as { tokenSecret?: unknown }).tokenSecret ?? ''), 'base64');
        if (secret.length !== this.tokenSecret.length) throw new Error('tokenSecret has the wrong length');
        this.tokenSecret.set(secret);
      },
    });
  }

  /** Areas register how to forget their state on POST /_sandbox/reset. */
  onReset(fn: () => void): void {
    this.resetHooks.push(fn);
  }

  /**
   * Areas register what a sandbox with a dataDir keeps across restarts (see persistence.ts); without one,
   * nothing calls these. Faults, the request log and callbacks in flight are never kept.
   */
  persist(area: PersistedArea): void {
    if (this.persisted.some((a) => a.name === area.name)) throw new Error(`sandbox: persisted state ${area.name} registered twice`);
    this.persisted.push(area);
  }

  get persistedAreas(): readonly PersistedArea[] {
    return this.persisted;
  }

  reset(): void {
    this.faults.clear();
    this.latency.clear();
    this.callbackFaults.clear();
    this.requests.clear();
    this.rateLimiter.clear();
    this.callbacks.clear();
    for (const fn of this.resetHooks) fn();
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
    this.callbacks.close();
    for (const done of [...this.sleepers]) done();
  }
}
