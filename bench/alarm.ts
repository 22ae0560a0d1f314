// The CI alarm (`.ci/run`): runs the short table and compares it with the table recorded in the repo
// (bench/results/latest-short.json). Fails when a row's median ratio fell below 0.7 of the recorded one, or
// a value with a target moved 30% the wrong way, or a bench timed out or gave no result. It catches
// regressions; whether the targets are met is the table's business, not the alarm's.
//   npx tsx bench/alarm.ts [--result <run.json>] [--recorded <run.json>]
// --result compares a table already run instead of running one. Only dev-target runs are compared: the recorded
// table is the dev server's, and a cluster run (bench/target.ts) measures another server; it is refused.
import { parseArgs } from 'node:util';
import { compareRuns, failed } from './table/compare.js';
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

const checks = compareRuns(recorded, now);
const bad = checks.filter(failed);
process.stdout.write(`\nbench alarm against ${recordedFile}${recorded ? ` (${recorded.startedAt})` : ': nothing recorded there yet'}:\n`);
for (const c of checks)
  process.stdout.write(
    `  ${failed(c) ? 'FAIL' : c.verdict === 'ok' ? 'ok  ' : '--  '} ${c.verdict === 'ok' || failed(c) ? '' : `${c.verdict}: `}${c.message}\n`,
  );
process.stdout.write(
  bad.length
    ? `bench alarm: ${bad.length} of ${checks.length} rows regressed or have no result (see FAIL above)\n`
    : `bench alarm: no regression in ${checks.length} rows\n`,
);
process.exit(bad.length ? 1 : 0);
