// `npm run soak`: the fault suite's cluster (test/faults/rig.ts) under mixed load for a bounded time (20 minutes
// unless --minutes says otherwise). Round after round it starts processes of every kind through the front, breaks
// one thing drawn at random from the fault table's rows after a random delay, lets the load settle, and counts it
// as the fault suite does. The seed is printed first and last: `--seed N` replays the same draws. Exits 1 on any
// duplicate, loss or unfinished process. Not part of CI: it is long on purpose.
import { parseArgs } from 'node:util';
import { FAULT_ENV, FAULTS, runFaultRow } from '../test/faults/fault-rows.js';
import { startRig } from '../test/faults/rig.js';
import { formatTable, type Row } from '../test/faults/scenario.js';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '20' }, seed: { type: 'string' }, 'per-kind': { type: 'string', default: '2' } },
});
const positive = (name: string, raw: string, max: number) => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`--${name} must be a whole number from 1 to ${max} (got "${raw}")`);
  return n;
};
const minutes = positive('minutes', values.minutes, 24 * 60);
const perKind = positive('per-kind', values['per-kind'], 20);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : positive('seed', values.seed, 2 ** 31);

/** mulberry32: small, seeded, good enough to draw faults and delays reproducibly. */
function rng(s: number): () => number {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const say = (msg: string) => process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const draw = rng(seed);
say(`seed ${seed} (replay: npm run soak -- --seed ${seed} --minutes ${minutes} --per-kind ${perKind})`);
say('starting the cluster (test/faults/rig.ts: PostgreSQL, Temporal, the sandbox, 2 workers, 2 APIs, the front)');
const rig = await startRig({ env: FAULT_ENV });
say(`cluster ready; logs in ${rig.dir}/logs`);

const rows: Row[] = [];
const until = Date.now() + minutes * 60_000;
let problem = false;
try {
  for (let round = 1; Date.now() < until; round++) {
    const fault = FAULTS[Math.floor(draw() * FAULTS.length)]!;
    const delayMs = Math.floor(draw() * 3000);
    const name = `${round}: ${fault.name} (after ${delayMs} ms)`;
    let row: Row;
    try {
      row = await runFaultRow(rig, fault, { perKind, name, delayMs });
    } catch (err) {
      row = { scenario: name, processes: 0, completed: 0, duplicates: 0, losses: 1, findings: [`the round failed: ${(err as Error).message}`] };
    }
    rows.push(row);
    problem ||= row.findings.length > 0 || row.completed !== row.processes;
    say(`${name}: ${row.completed}/${row.processes} completed, ${row.duplicates} duplicates, ${row.losses} losses`);
    for (const f of row.findings) say(`  ${f}`);
  }
} finally {
  await rig.close({ keep: problem });
}
const total = (k: 'processes' | 'completed' | 'duplicates' | 'losses') => rows.reduce((n, r) => n + r[k], 0);
process.stdout.write(`\nsoak, ${minutes} min, seed ${seed}\n${formatTable(rows)}\n`);
say(
  `${rows.length} rounds, ${total('processes')} processes: ${total('completed')} completed, ${total('duplicates')} duplicates, ${total('losses')} losses (seed ${seed})`,
);
if (problem) say(`the cluster's logs are kept in ${rig.dir}/logs`);
process.exit(problem ? 1 : 0);
