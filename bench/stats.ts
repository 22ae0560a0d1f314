// Percentiles and throughput for the benchmarks' reports.
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export interface RunFigures {
  completed: number;
  seconds: number;
  perSecond: number;
  start: { p50: number; p99: number };
  answer: { p50: number; p99: number };
}

/** One run's raw measurements: latencies of each start and answer, and the run's wall time. */
export interface Samples {
  startMs: number[];
  answerMs: number[];
  seconds: number;
}

/** Figures over one or more runs: throughput is all completions over all the runs' time. */
export function figures(runs: Samples[]): RunFigures {
  const s = runs.flatMap((r) => r.startMs).sort((a, b) => a - b);
  const a = runs.flatMap((r) => r.answerMs).sort((a, b) => a - b);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  return {
    completed: a.length,
    seconds,
    perSecond: a.length / seconds,
    start: { p50: percentile(s, 50), p99: percentile(s, 99) },
    answer: { p50: percentile(a, 50), p99: percentile(a, 99) },
  };
}

/** Runs `total` jobs with at most `concurrency` at once. */
export async function pool(total: number, concurrency: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await job(next++);
    }),
  );
}
