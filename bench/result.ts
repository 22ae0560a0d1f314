// What each benchmark hands to the table (`npm run bench`, bench/table.ts): one line `BENCH_JSON {...}` at the
// end of its output, with a row per figure and, per round, relayflow's value, the baseline's value measured in
// the same round, and their ratio. The table shows min / median / max over the rounds; a target is met only
// when every round meets it.
import type { BenchTarget } from './target.js';

/** How a round's figure is judged: a ratio against the baseline, or a value with a unit of its own. */
export interface Target {
  /** What is compared with the bound: the round's ratio to the baseline, or relayflow's value alone. */
  of: 'ratio' | 'value';
  op: '>=' | '<=';
  bound: number;
}

export interface BenchRow {
  /** e.g. "verification start + report throughput". */
  figure: string;
  /** Unit of relayflow's and the baseline's values (e.g. "/s", "ms", "MB", "actions"). */
  unit: string;
  /** What the baseline is, in a few words (shown under the table). */
  baseline: string;
  relayflow: number[];
  /** The baseline's value in each round; empty for figures that have none (then the target is of: 'value'). */
  baselineValues: number[];
  /** relayflow / baseline per round (or baseline / relayflow where lower is better: say so in `figure`). */
  ratios: number[];
  target?: Target;
}

export interface BenchResult {
  bench: string;
  /** The Temporal server it ran on (bench/target.ts); absent in results from before there was a choice (dev). */
  target?: BenchTarget;
  rounds: number;
  rows: BenchRow[];
  /** Anything the reader needs next to the figures (e.g. fallbacks, duplicates, tasks per process). */
  notes?: string[];
}

export const BENCH_JSON_PREFIX = 'BENCH_JSON ';

/** Whether every round meets the row's target (true when it has none). */
export function targetMet(row: BenchRow): boolean {
  const t = row.target;
  if (!t) return true;
  const values = t.of === 'ratio' ? row.ratios : row.relayflow;
  return values.length > 0 && values.every((v) => (t.op === '>=' ? v >= t.bound : v <= t.bound));
}

/** Prints the result for the table runner; call it once, last. */
export function emitBenchResult(result: BenchResult): void {
  process.stdout.write(`${BENCH_JSON_PREFIX}${JSON.stringify(result)}\n`);
}
