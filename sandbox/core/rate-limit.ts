// Sliding one-second windows per key (a project, an account). Sliding rather than fixed so that a
// burst is judged the same whichever side of a second boundary it falls on.
import { AreaError } from './errors.js';

export interface RateLimitResult {
  allowed: boolean;
  /** Whole seconds until a slot frees up (>= 1 when refused, 0 when allowed). */
  retryAfterSeconds: number;
}

const WINDOW_MS = 1000;

class Window {
  times: number[] = [];
  head = 0;

  count(now: number): number {
    while (this.head < this.times.length && this.times[this.head]! <= now - WINDOW_MS) this.head++;
    if (this.head > 1024) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one request against `key` if it fits in `limit` per second; refused requests are not counted. */
  checkRateLimit(key: string, limit: number): RateLimitResult {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w) {
      w = new Window();
      this.windows.set(key, w);
    }
    if (w.count(now) >= limit) {
      const oldest = w.times[w.head]!;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
    }
    w.times.push(now);
    return { allowed: true, retryAfterSeconds: 0 };
  }

  /** Throws the 429 (rendered by the area's error family, with Retry-After) when over the limit. */
  enforce(key: string, limit: number, what = 'requests'): void {
    const r = this.checkRateLimit(key, limit);
    if (!r.allowed) {
      throw new AreaError(429, `Rate limit exceeded: at most ${limit} ${what} per second`, {
        headers: { 'retry-after': String(r.retryAfterSeconds) },
      });
    }
  }

  clear(): void {
    this.windows.clear();
  }
}

export const projectRateKey = (projectId: string) => `project:${projectId}`;
