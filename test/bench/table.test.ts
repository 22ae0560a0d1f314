// The bench table's pure parts: figures per row, the text and markdown tables, the docs section rewrite and
// the CI alarm's comparison with the recorded table.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BenchResult, BenchRow } from '../../bench/result.js';
import { compareRuns, failed } from '../../bench/table/compare.js';
import type { BenchOutcome, TableRun } from '../../bench/table/outcome.js';
import { latestFile, replaceSection } from '../../bench/table/record.js';
import { markdownTable, renderText, tableCells } from '../../bench/table/render.js';
import { cpuProfileFor } from '../../bench/table/run-table.js';
import { median, num, summarise } from '../../bench/table/summary.js';

const throughput: BenchRow = {
  figure: 'verification throughput',
  unit: '/s',
  baseline: 'bare update-with-start + update',
  relayflow: [20, 18, 22],
  baselineValues: [100, 110, 90],
  ratios: [0.2, 0.16, 0.24],
  target: { of: 'ratio', op: '>=', bound: 0.7 },
};
const memory: BenchRow = {
  figure: 'worker memory per waiting process',
  unit: 'MB',
  baseline: '',
  relayflow: [0.4, 0.5],
  baselineValues: [],
  ratios: [],
  target: { of: 'value', op: '<=', bound: 1 },
};
const ok = (bench: string, rows: BenchRow[], notes?: string[]): BenchOutcome => ({
  bench,
  status: 'ok',
  seconds: 30,
  exitCode: 0,
  result: { bench, rounds: rows[0]?.relayflow.length ?? 0, rows, ...(notes ? { notes } : {}) } satisfies BenchResult,
});
const run = (benches: BenchOutcome[]): TableRun => ({
  profile: 'short',
  startedAt: '2026-11-26T02:00:00.000Z',
  wallSeconds: 95,
  leftOut: [{ bench: 'campaign', why: 'needs 100 s' }],
  machine: { cpus: { model: 'Test CPU', count: 2 }, totalMemoryGiB: 8, node: 'v22.0.0', platform: 'linux', release: '6.1' },
  benches,
});
const withRatios = (row: BenchRow, ratios: number[]): BenchRow => ({ ...row, ratios });

describe('row figures', () => {
  test('median of odd and even counts, NaN when empty', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.ok(Number.isNaN(median([])));
  });

  test('min / median / max of the ratios; met only when every round meets the target', () => {
    const s = summarise(throughput);
    assert.deepEqual(s.ratio, { min: 0.16, median: 0.2, max: 0.24 });
    assert.equal(s.met, false);
    assert.equal(summarise({ ...throughput, ratios: [0.8, 0.69] }).met, false);
    assert.equal(summarise({ ...throughput, ratios: [0.8, 0.7] }).met, true);
    assert.equal(summarise({ ...throughput, target: undefined }).met, undefined);
  });

  test('numbers: three significant digits, whole numbers from 100', () => {
    assert.deepEqual([0.123456, 1.23456, 12.3456, 1234.5, 0, NaN].map(num), ['0.123', '1.23', '12.3', '1,235', '0', '–']);
  });
});

describe('the table', () => {
  const table = run([
    ok('verification', [throughput], ['3.7 tasks per verification']),
    ok('memory', [memory]),
    { bench: 'actions', status: 'timed out', detail: 'bound 45 s', seconds: 45, exitCode: null },
  ]);

  test('one line per figure, a bench without a result as one line saying why', () => {
    assert.deepEqual(tableCells(table.benches), [
      ['verification', 'verification throughput', '20 /s', '100 /s', '0.16 / 0.2 / 0.24', 'ratio ≥ 0.7', 'NO'],
      ['memory', 'worker memory per waiting process', '0.45 MB', '–', '–', '≤ 1 MB', 'yes'],
      ['actions', 'timed out: bound 45 s', '', '', '', '', '–'],
    ]);
  });

  test('text: the aligned table, then baselines, notes, what was left out and the machine', () => {
    const lines = renderText(table).split('\n');
    assert.match(lines[0]!, /^bench +figure +relayflow \(median\) +baseline \(median\) +ratio min \/ median \/ max +target +met$/);
    assert.equal(lines[2]!.indexOf('verification throughput'), lines[0]!.indexOf('figure'));
    assert.ok(lines.includes('- baseline of verification (verification throughput): bare update-with-start + update'));
    assert.ok(lines.includes('- verification: 3.7 tasks per verification'));
    assert.ok(lines.includes('- campaign: left out of the short table (needs 100 s)'));
    assert.equal(lines.at(-1), 'targets met in every round: 1 of 2; 1 bench without a result');
    assert.match(lines.at(-2)!, /^short profile, 2026-11-26T02:00:00.000Z, 95 s wall; 2 × Test CPU, 8 GiB, Node v22.0.0, linux 6.1$/);
  });

  test('a cluster run says so in its machine line, without the dev server CLI it did not use', () => {
    const cluster = { ...table, target: 'cluster' as const, machine: { ...table.machine, temporalCli: { source: 'cached', version: '1.9.1' } } };
    assert.match(
      renderText(cluster).split('\n').at(-2)!,
      /^short profile, target cluster \(Temporal server on PostgreSQL, as npm run cluster runs it\), 2026-11-26T02:00:00.000Z, 95 s wall; 2 × Test CPU, 8 GiB, Node v22.0.0, linux 6.1$/,
    );
    assert.equal(renderText({ ...table, target: 'dev' }), renderText(table));
  });

  test('a cluster run is recorded beside the dev tables, never over them', () => {
    assert.equal(latestFile('full'), 'bench/results/latest-full.json');
    assert.equal(latestFile('short', 'dev'), 'bench/results/latest-short.json');
    assert.equal(latestFile('full', 'cluster'), 'bench/results/latest-full-cluster.json');
  });

  test('markdown escapes pipes in cells', () => {
    assert.equal(markdownTable([['a|b', '', '', '', '', '', '']]).split('\n')[2], '| a\\|b |  |  |  |  |  |  |');
  });

  test('the docs section between the profile markers is replaced, the rest kept', () => {
    const doc = 'intro\n<!-- bench-table:full:start -->\nold\n<!-- bench-table:full:end -->\nafter\n';
    assert.equal(replaceSection(doc, 'full', 'new'), 'intro\n<!-- bench-table:full:start -->\nnew\n<!-- bench-table:full:end -->\nafter\n');
    assert.throws(() => replaceSection(doc, 'short', 'new'), /markers <!-- bench-table:short:start -->/);
  });

  test('a CPU profile file per bench when several run', () => {
    assert.equal(cpuProfileFor('/tmp/rf.cpuprofile', 'voice', true), '/tmp/rf.voice.cpuprofile');
    assert.equal(cpuProfileFor('/tmp/rf', 'voice', true), '/tmp/rf.voice');
    assert.equal(cpuProfileFor('/tmp/rf.cpuprofile', 'voice', false), '/tmp/rf.cpuprofile');
  });
});

describe('the alarm', () => {
  const recorded = run([ok('verification', [throughput]), ok('memory', [memory])]);
  const verdicts = (now: TableRun) =>
    compareRuns(recorded, now)
      .filter((c) => c.verdict !== 'not run')
      .map((c) => [c.figure || c.bench, c.verdict]);

  test('a median ratio below 0.7 of the recorded worst round fails, naming the figure and both ratios', () => {
    // Recorded rounds 0.16 / 0.2 / 0.24: the limit is 0.7 x 0.16.
    const checks = compareRuns(recorded, run([ok('verification', [withRatios(throughput, [0.1, 0.105, 0.5])])]));
    assert.equal(checks[0]!.verdict, 'regressed');
    assert.equal(
      checks[0]!.message,
      'verification: "verification throughput": median ratio 0.105, recorded ratio 0.2 (alarm unless at least ratio 0.112; the recorded rounds went down to ratio 0.16)',
    );
    assert.deepEqual(verdicts(run([ok('verification', [withRatios(throughput, [0.12])])])), [['verification throughput', 'ok']]);
    // One round recorded: its median is its worst, so the limit is 0.7 of it.
    const single = run([ok('verification', [withRatios(throughput, [0.2])])]);
    assert.equal(compareRuns(single, run([ok('verification', [withRatios(throughput, [0.135])])]))[0]!.verdict, 'regressed');
    assert.equal(compareRuns(single, run([ok('verification', [withRatios(throughput, [0.145])])]))[0]!.verdict, 'ok');
  });

  test('a value with a <= target fails above 1.3 times the recorded one; >= below 0.7 of it', () => {
    // Recorded rounds 0.4 and 0.5: held to the worse, 1.3 x 0.5.
    assert.deepEqual(verdicts(run([ok('memory', [{ ...memory, relayflow: [0.66] }])])), [['worker memory per waiting process', 'regressed']]);
    assert.deepEqual(verdicts(run([ok('memory', [{ ...memory, relayflow: [0.64] }])])), [['worker memory per waiting process', 'ok']]);
    const rate: BenchRow = { ...memory, figure: 'rate', target: { of: 'value', op: '>=', bound: 190 } };
    const was = run([ok('campaign', [{ ...rate, relayflow: [200] }])]);
    assert.equal(compareRuns(was, run([ok('campaign', [{ ...rate, relayflow: [139] }])]))[0]!.verdict, 'regressed');
    assert.equal(compareRuns(was, run([ok('campaign', [{ ...rate, relayflow: [141] }])]))[0]!.verdict, 'ok');
  });

  test('a value may also move by a tenth of its bound: small shares against a loose target do not alarm; a zero bound allows nothing', () => {
    const share: BenchRow = { ...memory, figure: '429 share', unit: '%', target: { of: 'value', op: '<=', bound: 1 } };
    const was = run([ok('campaign', [{ ...share, relayflow: [0.05] }])]);
    assert.equal(compareRuns(was, run([ok('campaign', [{ ...share, relayflow: [0.14] }])]))[0]!.verdict, 'ok');
    assert.equal(compareRuns(was, run([ok('campaign', [{ ...share, relayflow: [0.16] }])]))[0]!.verdict, 'regressed');
    const dups: BenchRow = { ...memory, figure: 'duplicates', unit: '', target: { of: 'value', op: '<=', bound: 0 } };
    const none = run([ok('campaign', [{ ...dups, relayflow: [0] }])]);
    assert.equal(compareRuns(none, run([ok('campaign', [{ ...dups, relayflow: [0] }])]))[0]!.verdict, 'ok');
    assert.equal(compareRuns(none, run([ok('campaign', [{ ...dups, relayflow: [1] }])]))[0]!.verdict, 'regressed');
  });

  test('a value whose baseline got slower this run may be as much slower; a quicker baseline does not tighten the limit', () => {
    const p99: BenchRow = { ...memory, figure: 'answer p99', unit: 'ms', target: { of: 'value', op: '<=', bound: 250 } };
    const was = run([ok('webhook-intake', [{ ...p99, relayflow: [185], baselineValues: [142] }])]);
    const now = (rf: number, base: number) => compareRuns(was, run([ok('webhook-intake', [{ ...p99, relayflow: [rf], baselineValues: [base] }])]))[0]!;
    assert.equal(now(352, 142).verdict, 'regressed');
    assert.equal(now(290, 142).verdict, 'ok'); // a latency may move 60%: alarm above 296
    const busy = now(352, 284); // the machine twice as slow: 185 counts as 370, alarm above 592
    assert.equal(busy.verdict, 'ok');
    assert.match(busy.message, /its baseline 284 ms against 142 ms recorded, so the recorded figure counts as 370 ms/);
    assert.equal(now(600, 284).verdict, 'regressed');
    assert.equal(now(300, 71).verdict, 'regressed'); // a quiet machine: the limit stays 185 x 1.6
    assert.equal(now(352, 0).verdict, 'regressed'); // no usable baseline: unscaled
  });

  test("a value is held to the recorded run's worst round when that is worse than its median", () => {
    const p50: BenchRow = { ...memory, figure: 'report p50', unit: 'ms', target: { of: 'value', op: '<=', bound: 50 } };
    // Rounds 138 and 407 ms: the median 272.5 would alarm above 436; the worst round, above 651.
    const was = run([ok('verification', [{ ...p50, relayflow: [138, 407] }])]);
    const now = (rf: number) => compareRuns(was, run([ok('verification', [{ ...p50, relayflow: [rf] }])]))[0]!;
    assert.equal(now(580).verdict, 'ok');
    assert.match(now(580).message, /alarm unless at most 651 ms; the recorded rounds went up to 407 ms/);
    assert.equal(now(660).verdict, 'regressed');
    const rate: BenchRow = { ...memory, figure: 'rate', target: { of: 'value', op: '>=', bound: 190 } };
    const rates = run([ok('campaign', [{ ...rate, relayflow: [150, 200, 210] }])]);
    assert.equal(compareRuns(rates, run([ok('campaign', [{ ...rate, relayflow: [106] }])]))[0]!.verdict, 'ok');
    assert.equal(compareRuns(rates, run([ok('campaign', [{ ...rate, relayflow: [104] }])]))[0]!.verdict, 'regressed');
  });

  test('a row not in the recorded table is reported, not failed; a bench without a result fails', () => {
    const checks = compareRuns(
      recorded,
      run([
        ok('verification', [{ ...throughput, figure: 'new figure' }]),
        { bench: 'memory', status: 'timed out', detail: 'bound 45 s', seconds: 45, exitCode: null },
        { bench: 'actions', status: 'no result', detail: 'bench/actions.ts does not exist', seconds: 0, exitCode: null },
      ]),
    );
    assert.deepEqual(
      checks.map((c) => [c.verdict, failed(c)]),
      [
        ['not recorded', false],
        ['no result', true],
        ['no result', true],
      ],
    );
    assert.equal(checks[1]!.message, 'memory: timed out (bound 45 s)');
    assert.equal(compareRuns(undefined, recorded).filter(failed).length, 0);
    const left = compareRuns(recorded, run([ok('verification', [throughput])]));
    assert.deepEqual(left.map((c) => [c.verdict, c.message]).at(-1), ['not run', 'memory: recorded, not run this time']);
  });

  test('a row with neither ratios nor a value target is not compared', () => {
    assert.deepEqual(verdicts(run([ok('verification', [{ ...throughput, ratios: [], target: undefined }])])), [['verification throughput', 'not compared']]);
  });
});
