// The state of one sandbox instance, shared by the core pipeline, the control routes and every area.
import { randomBytes } from 'node:crypto';
import { AccountDirectory } from './accounts.js';
import { CallbackDispatcher } from './callbacks.js';
import { CallbackFaults, FaultStore, LatencyStore } from './faults.js';
import type { ResolvedSandboxOptions } from './options.js';
import { RateLimiter } from './rate-limit.js';
import { RequestLog } from './request-log.js';

export class SandboxContext {
  readonly accounts: AccountDirectory;
  /** Per-instance HS256 key: tokens from another sandbox (or an earlier run) are rejected. */
  readonly tokenSecret: Uint8Array = randomBytes(32);
  readonly requests = new RequestLog();
  readonly faults = new FaultStore();
  readonly latency = new LatencyStore();
  readonly callbackFaults = new CallbackFaults();
  readonly rateLimiter = new RateLimiter();
  readonly callbacks: CallbackDispatcher;
  private readonly resetHooks: (() => void)[] = [];
  private readonly sleepers = new Set<() => void>();

  constructor(readonly options: ResolvedSandboxOptions) {
    this.accounts = new AccountDirectory(options.accounts);
    this.callbacks = new CallbackDispatcher({ faults: this.callbackFaults, logger: options.logger });
  }

  /** Areas register how to forget their state on POST /_sandbox/reset. */
  onReset(fn: () => void): void {
    this.resetHooks.push(fn);
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
