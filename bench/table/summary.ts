// Per-row figures of the table: min / median / max over the rounds, and whether the target is met (every
// round). Pure, shared by the rendering, the recorded JSON and the alarm.
import { targetMet, type BenchRow, type Target } from '../result.js';

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface RowSummary {
  relayflow: number;
  baseline: number;
  ratio: { min: number; median: number; max: number };
  /** undefined when the row has no target. */
  met: boolean | undefined;
}

export function summarise(row: BenchRow): RowSummary {
  return {
    relayflow: median(row.relayflow),
    baseline: median(row.baselineValues),
    ratio: {
      min: row.ratios.length ? Math.min(...row.ratios) : NaN,
      median: median(row.ratios),
      max: row.ratios.length ? Math.max(...row.ratios) : NaN,
    },
    met: row.target ? targetMet(row) : undefined,
  };
}

/** A figure for a table cell: 3 significant digits below 100, whole numbers (with separators) above. */
export function num(v: number): string {
  if (!Number.isFinite(v)) return '–';
  if (Math.abs(v) >= 100) return Math.round(v).toLocaleString('en-US');
  if (v === 0) return '0';
  return String(Number(v.toPrecision(3)));
}

export function targetText(t: Target | undefined, unit: string): string {
  if (!t) return '–';
  const op = t.op === '>=' ? '≥' : '≤';
  return t.of === 'ratio' ? `ratio ${op} ${num(t.bound)}` : `${op} ${num(t.bound)} ${unit}`.trimEnd();
}
