// The budgets of actions and history events per process (bench/budgets.ts) and the alarm's check of them
// (checkBudgets in bench/table/compare.ts): no slack, every round, a figure missing fails, a budget marked not
// met yet is held to the count given; budgeted rows are left out of the 30% regression comparison; the docs
// table is the budgets module's.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { budgetFigure, budgetLimits, budgetTableMarkdown, BUDGETS, type Budget } from '../../bench/budgets.js';
import type { BenchRow } from '../../bench/result.js';
import { checkBudgets, compareRuns, failed } from '../../bench/table/compare.js';
import type { BenchOutcome, TableRun } from '../../bench/table/outcome.js';

const budgets: Budget[] = [
  { process: 'verification', scope: '', bench: 'actions', actions: 8, events: 20 },
  { process: 'provisioning webhook', scope: '', bench: 'actions', events: 4 },
  { process: 'onboarding', scope: '', bench: 'actions', actions: 90, events: 320, notMetYet: { events: 400 } },
];
const limits = budgetLimits(budgets);

const count = (figure: string, values: number[]): BenchRow => ({
  figure,
  unit: figure.startsWith('Temporal') ? 'actions' : 'events',
  baseline: 'none (a budget)',
  relayflow: values,
  baselineValues: [],
  ratios: [],
});
const actions = (rows: BenchRow[]): BenchOutcome => ({
  bench: 'actions',
  status: 'ok',
  seconds: 40,
  exitCode: 0,
  result: { bench: 'actions', rounds: 1, rows },
});
const run = (benches: BenchOutcome[]): TableRun => ({
  profile: 'short',
  startedAt: '2026-11-28T02:00:00.000Z',
  wallSeconds: 60,
  leftOut: [],
  machine: { cpus: { model: 'Test CPU', count: 2 }, totalMemoryGiB: 8, node: 'v20.0.0', platform: 'linux', release: '6.1' },
  benches,
});
/** Every budgeted figure at the given counts (the budget's own value by default). */
const allAt = (over: Record<string, number[]> = {}) => run([actions(limits.map((l) => count(l.figure, over[l.figure] ?? [l.budget])))]);
const verdicts = (r: TableRun) => checkBudgets(r, limits).map((c) => [c.figure, c.verdict]);

describe('budgets', () => {
  test('one limit per budgeted count, named as the bench names its figure; a budget not met yet is enforced at its given count', () => {
    assert.deepEqual(
      limits.map((l) => [l.figure, l.budget, l.enforced]),
      [
        ['Temporal actions per verification', 8, 8],
        ['history events per verification', 20, 20],
        ['history events per provisioning webhook', 4, 4],
        ['Temporal actions per onboarding', 90, 90],
        ['history events per onboarding', 320, 400],
      ],
    );
    assert.equal(budgetFigure('1,000 campaign messages', 'actions'), 'Temporal actions per 1,000 campaign messages');
  });

  test('every budget is measured by a bench of the short table', () => {
    assert.deepEqual(
      BUDGETS.map((b) => [b.process, b.bench, b.actions, b.events]),
      [
        ['verification', 'actions', 12, 24],
        ['incoming call', 'actions', 8, 16],
        ['callout', 'actions', 10, 24],
        ['provisioning webhook', 'actions', undefined, 4],
        ['onboarding', 'actions', 128, 358],
        ['1,000 campaign messages', 'campaign', 7.5, undefined],
      ],
    );
  });

  test('every count at its budget passes', () => {
    assert.ok(checkBudgets(allAt(), limits).every((c) => c.verdict === 'ok'));
    assert.equal(checkBudgets(allAt(), limits)[0]!.message, 'verification: "Temporal actions per verification" is 8, within its budget of 8');
  });

  test('one over its budget fails, naming the process, the figure, the count and the budget: no slack', () => {
    const checks = checkBudgets(allAt({ 'history events per verification': [21] }), limits);
    const bad = checks.filter(failed);
    assert.equal(bad.length, 1);
    assert.equal(bad[0]!.verdict, 'over budget');
    assert.equal(bad[0]!.message, 'verification: "history events per verification" is 21, over its budget of 20');
  });

  test('a fraction over fails too (per-webhook figures are averages), and any round over fails', () => {
    assert.deepEqual(verdicts(allAt({ 'history events per provisioning webhook': [4.2] }))[2], ['history events per provisioning webhook', 'over budget']);
    const rounds = checkBudgets(allAt({ 'Temporal actions per verification': [7, 9, 8] }), limits)[0]!;
    assert.equal(rounds.verdict, 'over budget');
    assert.equal(rounds.message, 'verification: "Temporal actions per verification" is 9 (rounds: 7, 9, 8), over its budget of 8');
  });

  test('a budget marked not met yet: over its budget but within the enforced count is said, not failed; over that count fails', () => {
    const meanwhile = checkBudgets(allAt({ 'history events per onboarding': [400] }), limits).at(-1)!;
    assert.equal(meanwhile.verdict, 'not met yet');
    assert.equal(failed(meanwhile), false);
    assert.equal(meanwhile.message, 'onboarding: "history events per onboarding" is 400, over its budget of 320, which is marked not met yet: enforced at 400');
    const over = checkBudgets(allAt({ 'history events per onboarding': [401] }), limits).at(-1)!;
    assert.equal(over.verdict, 'over budget');
    assert.equal(over.message, 'onboarding: "history events per onboarding" is 401, over its budget of 320 (not met yet: enforced at 400)');
    const met = checkBudgets(allAt({ 'history events per onboarding': [300] }), limits).at(-1)!;
    assert.equal(met.verdict, 'ok');
    assert.match(met.message, /still marked not met yet, enforced at 400: the mark can go/);
  });

  test('a figure not measured fails: a row missing, a bench without a result, a bench not run', () => {
    const missing = run([actions([count('Temporal actions per verification', [8])])]);
    const checks = checkBudgets(missing, limits);
    assert.equal(checks[1]!.verdict, 'no result');
    assert.equal(checks[1]!.message, 'verification: "history events per verification" not measured: actions reported no such row (its budget of 20)');
    const timedOut = checkBudgets(run([{ bench: 'actions', status: 'timed out', detail: 'bound 60 s', seconds: 60, exitCode: null }]), limits);
    assert.ok(timedOut.every((c) => c.verdict === 'no result' && failed(c)));
    assert.match(timedOut[0]!.message, /not measured: actions timed out \(bound 60 s\)/);
    assert.match(checkBudgets(run([]), limits)[0]!.message, /not measured: actions did not run/);
  });

  test('a budgeted row is left to the budget check: never compared with the recording, whatever it moved', () => {
    const recorded = allAt({ 'Temporal actions per verification': [2] });
    const now = allAt({ 'Temporal actions per verification': [8] }); // 4x the recording, within its budget
    const compared = compareRuns(recorded, now, limits);
    assert.equal(compared.filter(failed).length, 0);
    assert.equal(
      compared.some((c) => c.figure === 'Temporal actions per verification'),
      false,
    );
    // A value row without a budget is still compared as before.
    const other: BenchRow = { ...count('worker memory per waiting process', [0.4]), unit: 'MB', target: { of: 'value', op: '<=', bound: 1 } };
    const grown = compareRuns(run([actions([other])]), run([actions([{ ...other, relayflow: [0.6] }])]), limits);
    assert.deepEqual(
      grown.map((c) => c.verdict),
      ['regressed'],
    );
  });
});

describe('the docs table', () => {
  test("docs/benchmarks.md shows the budgets module's table between its markers", async () => {
    const doc = await readFile('docs/benchmarks.md', 'utf8');
    const start = '<!-- bench-table:budgets:start -->';
    const end = '<!-- bench-table:budgets:end -->';
    assert.ok(doc.includes(start) && doc.includes(end), 'the markers are there');
    assert.equal(doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end)).trim(), budgetTableMarkdown(), 'run `npx tsx bench/budgets.ts --write`');
  });

  test('a budget not met yet says so, with the count enforced', () => {
    const table = budgetTableMarkdown(budgets).split('\n');
    assert.equal(table[0], '| process | what is counted | bench | actions | history events |');
    assert.equal(table.at(-1), '| onboarding |  | actions | ≤ 90 | ≤ 320 (not met yet: enforced at 400) |');
    assert.equal(table[3], '| provisioning webhook |  | actions | – | ≤ 4 |');
  });
});
