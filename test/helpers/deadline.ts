// Waiting for something with a deadline. The timer is cleared as soon as the wait ends: a bare
// Promise.race against a setTimeout keeps the test process alive until that timer fires, long after the test.

const TIMED_OUT = Symbol('timed out');

/** `promise`'s value, or `onTimeout()`'s (thrown if it throws) when `ms` pass first. */
export async function within<T, U = never>(promise: Promise<T>, ms: number, onTimeout: () => U | Promise<U>): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((res) => (timer = setTimeout(() => res(TIMED_OUT), ms)));
  try {
    const first = await Promise.race([promise, timeout]);
    return first === TIMED_OUT ? await onTimeout() : first;
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Gaps between the polls of a process through Temporal (a query: the server, the worker and the codec each pay
 * for it): soon at first, since most waits are short, then growing to at most `maxMs`, so a wait of seconds
 * asks a dozen times, not fifty.
 */
export function pollGaps(firstMs = 50, maxMs = 400): () => Promise<void> {
  let gap = firstMs;
  return async () => {
    await sleep(gap);
    gap = Math.min(maxMs, Math.round(gap * 1.5));
  };
}

/** Polls `check` every `everyMs` until it gives a value (not undefined, not false); fails naming `what` after `ms`. */
export async function pollUntil<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 5000, everyMs = 10): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
