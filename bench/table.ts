// `npm run bench`: every benchmark of bench/suite.ts, each in its own process against its baseline measured
// in the same run, then one table (figure, relayflow, baseline, ratio min / median / max over the rounds,
// target, met in every round). Writes the run to bench/results/; --record also makes it the recorded table
// (bench/results/latest-<profile>.json and docs/benchmarks.md). See docs/benchmarks.md.
//   npm run bench -- [--profile short|full] [--target dev|cluster] [--only name[,name]] [--record] [--from <run.json>]
// --from shows (and with --record records) a run already made instead of running the benches. --target cluster runs
// them on the Temporal server on PostgreSQL (bench/target.ts) and records into files of its own (table/record.ts).
import { parseTableArgs } from './table/args.js';
import { readRun, writeRun } from './table/record.js';
import { renderText } from './table/render.js';
import { runTable } from './table/run-table.js';
import { stopOnSignal } from './table/signals.js';

const args = parseTableArgs(process.argv.slice(2), 'full');
stopOnSignal();
const run = args.from ? await readRun(args.from) : await runTable(args);
if (!run) throw new Error(`${args.from}: no such file`);
const files = await writeRun(run, { record: args.record });
process.stdout.write(`\nwritten: ${files.join(', ')}\n\n${renderText(run)}\n`);
process.exit(0);
