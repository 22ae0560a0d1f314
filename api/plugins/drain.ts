// Closing the app waits for the route handlers still running. A handler whose caller went away (a closed socket does
// not stop it) can still be in a Temporal call, and the connection is closed right after app.close(): a call the
// client retries on a closed channel throws outside any promise, an uncaught exception at shutdown.
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';

/** Longer than any wait a handler has on Temporal (DEFAULT_WAIT_MS), shorter than a usual stop grace period (30 s). */
const DRAIN_MAX_MS = 25_000;

export function drainHandlersOnClose(app: FastifyInstance, maxMs = DRAIN_MAX_MS): void {
  let running = 0;
  let drained: (() => void) | undefined;
  const done = () => {
    running -= 1;
    if (running === 0) drained?.();
  };
  // Every route registered after this, in any plugin, runs through the count.
  app.addHook('onRoute', (route) => {
    const handler = route.handler as (...args: unknown[]) => unknown;
    route.handler = function (this: unknown, ...args: unknown[]) {
      running += 1;
      let result: unknown;
      try {
        result = handler.apply(this, args);
      } catch (err) {
        done();
        throw err;
      }
      // Same value, same sync or async: only the count changes.
      if (result instanceof Promise) return result.finally(done);
      done();
      return result;
    } as RouteHandlerMethod;
  });
  app.addHook('onClose', async () => {
    if (running === 0) return;
    app.log.info({ running }, 'waiting for the handlers still running before closing');
    await new Promise<void>((resolve) => {
      drained = resolve;
      setTimeout(resolve, maxMs).unref();
    });
  });
}
