// The CI alarm's verdicts. compareRuns: the new short table against the one recorded in the repo, row by row
// (bench and figure), an alarm against regressions, not a test of the targets: a row fails when its median moved
// well into the worse direction since the recording, whatever its target. checkBudgets: each process's counts of
// actions and history events against its budget (bench/budgets.ts), every round, no slack: counts are
// deterministic. A row with a budget is checked only there. Pure.
import { budgetLimits, type BudgetLimit } from '../budgets.js';
import type { BenchRow } from '../result.js';
import type { TableRun } from './outcome.js';
import { median, num } from './summary.js';

/**
 * A ratio (higher is better) fails below this share of the recorded one, or of the recorded run's worst round when
 * that is lower: on two cores one round's ratio may be half another's in the same run (voice answers 0.688 and
 * 0.277), and a median of two or three such rounds moved 30% between runs of the same code. A regression of the
 * kind the alarm is for (verification falling from 0.45 to 0.17) is below either.
 */
const RATIO_FLOOR = 0.7;
/**
 * A value with a target fails when it moved more than this share of the recorded one (or of its worst round, when
 * worse) the wrong way (above 1.3 x
 * for a `<=` target, below 0.7 x for `>=`), or, when that is smaller, this share of the target's bound: a share
 * of 429s recorded at 0.05% against a 1% target must not alarm at 0.07%.
 */
const VALUE_SLACK = 0.3;
const BOUND_SLACK = 0.1;
/**
 * A latency (a row in ms) may move 60% before it alarms: a short table's p50 and p99 come from a few dozen to a few
 * hundred samples over two or three rounds, and they moved more than 30% between runs on one day on this
 * machine (verification start p50 over its baseline 588, 830, 867, 942, 1,049 ms; webhook p99 185 to 352 ms).
 * A regression of the kind the alarm is for (the verification throughput falling from 0.45 to 0.17) shows in the
 * ratio rows beside them anyway.
 */
const LATENCY_SLACK = 0.6;

type Verdict = 'ok' | 'regressed' | 'no result' | 'not recorded' | 'not compared' | 'not run' | 'over budget' | 'not met yet';

export interface Check {
  bench: string;
  figure: string;
  verdict: Verdict;
  message: string;
}

export const failed = (c: Check) => c.verdict === 'regressed' || c.verdict === 'no result' || c.verdict === 'over budget';

/** What the alarm compares in a row: its median ratio (higher is better), or its value in the target's direction. */
interface Measure {
  value: number;
  /** The worst round: a ratio row's lowest; a value row's furthest the wrong way. */
  worst?: number;
  higherIsBetter: boolean;
  bound?: number;
  baseline?: number;
  latency?: boolean;
  show: (v: number) => string;
}

function measure(row: BenchRow): Measure | undefined {
  if (row.target?.of !== 'value' && row.ratios.length)
    return { value: median(row.ratios), worst: Math.min(...row.ratios), higherIsBetter: true, show: (v) => `ratio ${num(v)}` };
  if (row.target?.of === 'value' && row.relayflow.length) {
    const baseline = row.baselineValues.length ? median(row.baselineValues) : undefined;
    const higherIsBetter = row.target.op === '>=';
    return {
      value: median(row.relayflow),
      worst: higherIsBetter ? Math.min(...row.relayflow) : Math.max(...row.relayflow),
      higherIsBetter,
      bound: row.target.bound,
      baseline,
      latency: row.unit === 'ms',
      show: (v) => `${num(v)} ${row.unit}`.trimEnd(),
    };
  }
  return undefined;
}

/** The worst the new figure may be: a ratio down to 0.7 x the recorded one, a value as VALUE_SLACK (a latency: LATENCY_SLACK) says. */
function alarmLimit(recorded: number, m: Pick<Measure, 'higherIsBetter' | 'bound' | 'latency'>): number {
  if (m.bound === undefined) return recorded * RATIO_FLOOR;
  const slack = Math.max(Math.abs(recorded) * (m.latency ? LATENCY_SLACK : VALUE_SLACK), Math.abs(m.bound) * BOUND_SLACK);
  return m.higherIsBetter ? recorded - slack : recorded + slack;
}

/**
 * How much worse the machine was this run than at the recording, read from the row's own baseline (measured beside
 * relayflow in the same rounds): a tail latency moves with the host's load (a p99 recorded at 185 ms came back at
 * 352 ms on a busier CI host), and the baseline shows by how much. Only ever loosens the limit: a quieter machine
 * this run does not tighten it. 1 when either run has no usable baseline.
 */
function machineFactor(now: Measure, before: Measure): number {
  const [b0, b1] = [before.baseline, now.baseline];
  if (b0 === undefined || b1 === undefined || !(b0 > 0) || !(b1 > 0) || !Number.isFinite(b0) || !Number.isFinite(b1)) return 1;
  return now.higherIsBetter ? Math.min(1, b1 / b0) : Math.max(1, b1 / b0);
}

export function compareRuns(recorded: TableRun | undefined, now: TableRun, limits: readonly BudgetLimit[] = budgetLimits()): Check[] {
  const checks: Check[] = [];
  const budgeted = new Set(limits.map((l) => `${l.bench}\n${l.figure}`));
  const recordedRows = new Map<string, BenchRow>();
  for (const b of recorded?.benches ?? []) for (const r of b.result?.rows ?? []) recordedRows.set(`${b.bench}\n${r.figure}`, r);
  for (const b of now.benches) {
    if (b.status !== 'ok' || !b.result) {
      checks.push({ bench: b.bench, figure: '', verdict: 'no result', message: `${b.bench}: ${b.status}${b.detail ? ` (${b.detail})` : ''}` });
      continue;
    }
    for (const row of b.result.rows) {
      if (budgeted.has(`${b.bench}\n${row.figure}`)) continue; // checkBudgets: no slack for a count
      const name = `${b.bench}: "${row.figure}"`;
      const was = recordedRows.get(`${b.bench}\n${row.figure}`);
      const m = measure(row);
      const before = was && measure(was);
      if (!m) {
        checks.push({ bench: b.bench, figure: row.figure, verdict: 'not compared', message: `${name}: no ratio and no value target` });
      } else if (!before || !Number.isFinite(before.value)) {
        checks.push({
          bench: b.bench,
          figure: row.figure,
          verdict: 'not recorded',
          message: `${name}: not in the recorded table (now median ${m.show(m.value)})`,
        });
      } else {
        const factor = m.bound === undefined ? 1 : machineFactor(m, before);
        // The recorded run's worst round when worse than its median: a closed-loop p50 of 30 samples split between
        // start and report came back 138 and 407 ms in two rounds of one run, so a median of two is no fixed mark.
        const worst = before.worst ?? before.value;
        const reference = before.higherIsBetter ? Math.min(before.value, worst) : Math.max(before.value, worst);
        const limit = alarmLimit(reference * factor, m);
        const worse = !Number.isFinite(m.value) || (m.higherIsBetter ? m.value < limit : m.value > limit);
        const scaled =
          factor === 1
            ? ''
            : `; its baseline ${m.show(m.baseline!)} against ${m.show(before.baseline!)} recorded, so the recorded figure counts as ${m.show(reference * factor)}`;
        const rounds = reference !== before.value ? `; the recorded rounds went ${before.higherIsBetter ? 'down' : 'up'} to ${m.show(reference)}` : '';
        const bound = `${m.higherIsBetter ? 'at least' : 'at most'} ${m.show(limit)}${scaled}${rounds}`;
        checks.push({
          bench: b.bench,
          figure: row.figure,
          verdict: worse ? 'regressed' : 'ok',
          message: `${name}: median ${m.show(m.value)}, recorded ${m.show(before.value)} (alarm unless ${bound})`,
        });
      }
    }
  }
  // A recorded bench this run did not include (left out of the short table since): said, not failed.
  for (const b of recorded?.benches ?? []) {
    if (b.result && !now.benches.some((n) => n.bench === b.bench))
      checks.push({ bench: b.bench, figure: '', verdict: 'not run', message: `${b.bench}: recorded, not run this time` });
  }
  return checks;
}

/**
 * Every budget's figure in this run, each round's count against what is enforced (the budget, or the count a
 * budget not met yet is held to meanwhile): over it fails, naming the process, the figure and the budget; a
 * figure missing from the run fails too (a bench that gave no result, or a row it no longer reports).
 */
export function checkBudgets(now: TableRun, limits: readonly BudgetLimit[] = budgetLimits()): Check[] {
  return limits.map((l): Check => {
    const of = (verdict: Verdict, message: string): Check => ({ bench: l.bench, figure: l.figure, verdict, message });
    const outcome = now.benches.find((b) => b.bench === l.bench);
    const row = outcome?.result?.rows.find((r) => r.figure === l.figure);
    const meanwhile = l.enforced !== l.budget;
    const budget = `its budget of ${l.budget}${meanwhile ? ` (not met yet: enforced at ${l.enforced})` : ''}`;
    if (!outcome) return of('no result', `${l.process}: "${l.figure}" not measured: ${l.bench} did not run (${budget})`);
    if (!row || !row.relayflow.length) {
      const why = outcome.status !== 'ok' ? `${l.bench} ${outcome.status}${outcome.detail ? ` (${outcome.detail})` : ''}` : `${l.bench} reported no such row`;
      return of('no result', `${l.process}: "${l.figure}" not measured: ${why} (${budget})`);
    }
    const worst = Math.max(...row.relayflow.map((v) => (Number.isFinite(v) ? v : Infinity)));
    const is = `${l.process}: "${l.figure}" is ${worst}${row.relayflow.length > 1 ? ` (rounds: ${row.relayflow.join(', ')})` : ''}`;
    if (worst > l.enforced) return of('over budget', `${is}, over ${budget}`);
    if (worst > l.budget) return of('not met yet', `${is}, over its budget of ${l.budget}, which is marked not met yet: enforced at ${l.enforced}`);
    return of('ok', `${is}, within its budget of ${l.budget}${meanwhile ? ` (still marked not met yet, enforced at ${l.enforced}: the mark can go)` : ''}`);
  });
}
