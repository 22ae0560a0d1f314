// Retries that change nothing twice: a write gets one Idempotency-Key per logical call, and every retry of it
// (after a 5xx, a 429 or a network error) sends the same key, so relayflow repeats its first answer.
import { ulid } from 'ulid';

export interface RetryOptions {
  /** Tries in all, the first included. Default 4. */
  attempts?: number;
  /** The first backoff, doubled after each try (with jitter) when the answer names no Retry-After. Default 250 ms. */
  firstDelayMs?: number;
  /** The longest wait before a retry; a Retry-After beyond it is not waited out (its answer is returned). Default 30 s. */
  maxDelayMs?: number;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RETRIED_STATUSES = (status: number) => status === 429 || status >= 500;

/** Retry-After in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
function retryAfterMs(res: Response): number | undefined {
  const value = res.headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that sets a fresh Idempotency-Key on every write that has none and retries 5xx, 429 and network errors
 * with that same key, honouring Retry-After. A 4xx other than 429 is never retried: the request itself is wrong.
 */
export function retryingFetch(base: typeof fetch, opts: RetryOptions = {}): (input: Request, init?: RequestInit) => Promise<Response> {
  const attempts = Math.max(1, opts.attempts ?? 4);
  const firstDelayMs = opts.firstDelayMs ?? 250;
  const maxDelayMs = opts.maxDelayMs ?? 30_000;
  return async (input, init) => {
    const request = new Request(input);
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', ulid());
    for (let attempt = 1; ; attempt++) {
      const backoff = Math.min(maxDelayMs, firstDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
      let res: Response;
      try {
        res = await base(request.clone(), init);
      } catch (err) {
        // The caller's own abort (or timeout) ends the call: it is not the network failing.
        if (request.signal.aborted || attempt >= attempts) throw err;
        await sleep(backoff);
        continue;
      }
      if (!RETRIED_STATUSES(res.status) || attempt >= attempts) return res;
      const wait = retryAfterMs(res) ?? backoff;
      if (wait > maxDelayMs) return res;
      // The answer is dropped: its body is read away so the connection can be reused.
      await res.body?.cancel();
      await sleep(wait);
    }
  };
}
