// The memory benchmark's worker: relayflow's worker entry point (workers/main.ts) in a process of its own, as a
// deployment runs it, answering the benchmark's `measure` message over IPC with its memory after a full GC
// (started with --expose-gc).
process.on('message', (m: unknown) => {
  if (m !== 'measure') return;
  const gc = (globalThis as { gc?: () => void }).gc;
  // Twice: the first collection's finalizers free more for the second.
  gc?.();
  setTimeout(() => {
    gc?.();
    const u = process.memoryUsage();
    process.send?.({ rss: u.rss, heapUsed: u.heapUsed, heapTotal: u.heapTotal, external: u.external, arrayBuffers: u.arrayBuffers, gc: gc !== undefined });
  }, 200);
});
await import('../workers/main.js');
// The worker has stopped (SIGTERM): the IPC channel must not keep the process alive.
process.disconnect?.();
