// The campaign benchmark's baseline: `n` calls started on a fixed schedule at exactly `rate` per second (at most
// 16 at once, or half a second of the rate when that is more, up to 128, as a send worker's chunk keeps), nothing
// else in the way. A call refused with 429 waits its
// Retry-After and is made again, as the simplest client would; the refusals are counted.
import { PlatformRateLimitError } from '../platform/errors.js';

export async function pacedLoop(n: number, rate: number, call: (i: number) => Promise<unknown>): Promise<{ refused: number }> {
  const maxInFlight = Math.max(16, Math.min(128, Math.ceil(rate * 0.5)));
  const t0 = performance.now();
  const inFlight = new Set<Promise<void>>();
  let refused = 0;
  const attempt = async (i: number): Promise<void> => {
    for (;;) {
      try {
        await call(i);
        return;
      } catch (err) {
        if (!(err instanceof PlatformRateLimitError)) throw err;
        refused++;
        await new Promise((r) => setTimeout(r, err.retryAfterMs ?? 1_000));
      }
    }
  };
  for (let i = 0; i < n; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
    const p = attempt(i).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return { refused };
}
