// The CI alarm (`.ci/run`): runs the short table, then makes two checks. Regressions: the table against the
// one recorded in the repo (bench/results/latest-short.json); fails when a row's median ratio fell below 0.7 of
// the recorded one (of its worst round, when lower), or a value with a target moved 30% the wrong way, or a bench timed out or gave no result;
// whether those targets are met is the table's business, not the alarm's. Budgets: every process's count of
// actions and history events against its budget (bench/budgets.ts), no slack; fails on any count over it.
//   npx tsx bench/alarm.ts [--result <run.json>] [--recorded <run.json>]
// --result compares a table already run instead of running one. Only dev-target runs are compared: the recorded
// table is the dev server's, and a cluster run (bench/target.ts) measures another server; it is refused.
import { parseArgs } from 'node:util';
import { checkBudgets, compareRuns, failed, type Check } from './table/compare.js';
import { latestFile, readRun, writeRun } from './table/record.js';
import { renderText } from './table/render.js';
import { runTable } from './table/run-table.js';
import { stopOnSignal } from './table/signals.js';

const { values } = parseArgs({ args: process.argv.slice(2), options: { result: { type: 'string' }, recorded: { type: 'string' } } });
const recordedFile = values.recorded ?? latestFile('short');
const recorded = await readRun(recordedFile);
const refuseCluster = (what: string, run: { target?: string } | undefined) => {
  if (run?.target !== 'cluster') return;
  process.stderr.write(`bench alarm: ${what} ran on the cluster target; the alarm compares dev-server runs only (bench/target.ts)\n`);
  process.exit(2);
};
refuseCluster(recordedFile, recorded);

let now;
if (values.result) {
  now = await readRun(values.result);
  if (!now) throw new Error(`${values.result}: no such file`);
  refuseCluster(values.result, now);
} else {
  stopOnSignal();
  now = await runTable({ profile: 'short', target: 'dev' }); // whatever RELAYFLOW_BENCH_TARGET says
  const files = await writeRun(now, { record: false });
  process.stdout.write(`\nwritten: ${files.join(', ')}\n\n${renderText(now)}\n`);
}

const line = (c: Check) =>
  `  ${failed(c) ? 'FAIL' : c.verdict === 'ok' ? 'ok  ' : '--  '} ${c.verdict === 'ok' || failed(c) ? '' : `${c.verdict}: `}${c.message}\n`;

const checks = compareRuns(recorded, now);
const bad = checks.filter(failed);
process.stdout.write(`\nbench alarm against ${recordedFile}${recorded ? ` (${recorded.startedAt})` : ': nothing recorded there yet'}:\n`);
for (const c of checks) process.stdout.write(line(c));
process.stdout.write(
  bad.length
    ? `bench alarm: ${bad.length} of ${checks.length} rows regressed or have no result (see FAIL above)\n`
    : `bench alarm: no regression in ${checks.length} rows\n`,
);

const budgets = checkBudgets(now);
const over = budgets.filter(failed);
process.stdout.write(`\nbudgets (bench/budgets.ts: actions and history events per process, no slack):\n`);
for (const c of budgets) process.stdout.write(line(c));
const meanwhile = budgets.filter((c) => c.verdict === 'not met yet').length;
process.stdout.write(
  over.length
    ? `bench alarm: ${over.length} of ${budgets.length} counts over their budget or not measured (see FAIL above)\n`
    : `bench alarm: ${budgets.length} counts within their budgets${meanwhile ? `, ${meanwhile} of them only within the count enforced while their budget is not met yet` : ''}\n`,
);
process.exit(bad.length || over.length ? 1 : 0);
