// Event delivery benchmark: process events in the outbox (PostgreSQL, as a deployment keeps it) delivered by the
// workers' deliverer (workers/events/) to a receiver on this machine, signed, in order per process. Beside it in the
// same round: the baseline, a bare loop POSTing the same bodies to the same receiver at the same concurrency, no
// store and no signature. Rounds alternate which side goes first.
// Rows: events delivered per second (ratio to the bare loop), and the lag p99 from an event's write to its arrival
// while events are written at a steady rate (each process's next change only once the one before is written).
//   RELAYFLOW_BENCH_PROFILE=short|full npx tsx bench/events.ts
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ulid } from 'ulid';
import { createLogger } from '../common/logger.js';
import { openCampaignStore, EventSubscriptionStore, ProcessEventStore, processEventId } from '../store/index.js';
import { EventDeliverer } from '../workers/events/deliverer.js';
import { eventBody } from '../workers/events/post.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { benchProfile, exitWhenDone, log, sleep } from './bench-stack.js';
import { emitBenchResult, type BenchRow } from './result.js';
import { percentile, pool } from './stats.js';

const profile = benchProfile();
const P =
  profile === 'short'
    ? { processes: 50, perProcess: 10, rounds: 3, paced: { perSecond: 200, seconds: 3 } }
    : { processes: 400, perProcess: 10, rounds: 3, paced: { perSecond: 400, seconds: 10 } };
const CONCURRENCY = 16;
const settings = { allowPrivateUrls: true, retryForMs: 3 * 86_400_000, concurrency: CONCURRENCY, timeoutMs: 10_000, keepMs: 86_400_000, firstRetryMs: 5_000 };

const pg = await startPostgres();
const store = await openCampaignStore({ url: pg.url, dataDir: '' });
const events = new ProcessEventStore(store.sql);
const subs = new EventSubscriptionStore(store.sql);

// The receiver: notes when each event ID arrived (the first time).
const arrived = new Map<string, number>();
let onArrival: (() => void) | undefined;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = req.headers['webhook-id'];
    if (typeof id === 'string' && !arrived.has(id)) arrived.set(id, performance.now());
    res.writeHead(204).end();
    onArrival?.();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
const until = (n: number) =>
  new Promise<void>((resolve) => {
    onArrival = () => {
      if (arrived.size >= n) resolve();
    };
    onArrival();
  });

const change = (processId: string, runId: string, n: number) => ({
  processId,
  runId,
  kind: 'bench-events',
  events: [
    { n, state: n === 0 ? 'PENDING' : `STEP_${n}`, ...(n ? { previousState: n === 1 ? 'PENDING' : `STEP_${n - 1}` } : {}), at: new Date().toISOString() },
  ],
});

/** Writes `perProcess` events for each of `processes` processes; their IDs. */
async function fill(processes: number, perProcess: number): Promise<string[]> {
  const ids: string[] = [];
  await pool(processes, 8, async () => {
    const processId = `bench-events:${ulid()}`;
    const runId = ulid();
    for (let n = 0; n < perProcess; n++) {
      await events.record(change(processId, runId, n));
      ids.push(processEventId(processId, runId, n));
    }
  });
  return ids;
}

const deliverer = () => new EventDeliverer(subs, settings, createLogger({ level: 'silent' }));

async function relayflowRound(): Promise<number> {
  arrived.clear();
  const { subscription } = await subs.create({ url, kinds: ['bench-events'] });
  const total = P.processes * P.perProcess;
  await fill(P.processes, P.perProcess);
  const d = deliverer();
  const t0 = performance.now();
  const running = d.run();
  await until(total);
  const seconds = (performance.now() - t0) / 1000;
  d.stop();
  await running;
  await subs.delete(subscription.id);
  return total / seconds;
}

function post(body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function baselineRound(): Promise<number> {
  const total = P.processes * P.perProcess;
  const body = eventBody({
    eventId: `evt_${'0'.repeat(32)}`,
    processId: `bench-events:${ulid()}`,
    kind: 'bench-events',
    state: 'STEP_5',
    previousState: 'STEP_4',
    at: new Date().toISOString(),
  });
  const t0 = performance.now();
  await pool(total, CONCURRENCY, () => post(body));
  return total / ((performance.now() - t0) / 1000);
}

/** Events written at a steady rate while the deliverer runs: each one's lag from its write to its arrival (ms). */
async function lagRound(): Promise<number[]> {
  arrived.clear();
  const { subscription } = await subs.create({ url, kinds: ['bench-events'] });
  const d = deliverer();
  const running = d.run();
  const written = new Map<string, number>();
  const total = P.paced.perSecond * P.paced.seconds;
  const processes = Array.from({ length: 50 }, () => ({ processId: `bench-events:${ulid()}`, runId: ulid(), n: 0 }));
  const start = performance.now();
  await pool(total, 16, async (i) => {
    await sleep(Math.max(0, start + (i * 1000) / P.paced.perSecond - performance.now()));
    const p = processes[i % processes.length]!;
    const n = p.n++;
    // From the moment the process hands the change over (the state change itself is in the same workflow task).
    written.set(processEventId(p.processId, p.runId, n), performance.now());
    await events.record(change(p.processId, p.runId, n));
  });
  await until(total);
  d.stop();
  await running;
  await subs.delete(subscription.id);
  return [...written].map(([id, at]) => arrived.get(id)! - at).sort((a, b) => a - b);
}

const rate: number[] = [];
const bare: number[] = [];
const lagP99: number[] = [];
for (let r = 0; r < P.rounds; r++) {
  log(`round ${r + 1} of ${P.rounds}`);
  if (r % 2 === 0) {
    rate.push(await relayflowRound());
    bare.push(await baselineRound());
  } else {
    bare.push(await baselineRound());
    rate.push(await relayflowRound());
  }
  const lags = await lagRound();
  lagP99.push(percentile(lags, 99));
  log(
    `  relayflow ${rate.at(-1)!.toFixed(0)} events/s, bare POST loop ${bare.at(-1)!.toFixed(0)}/s; lag p50 ${percentile(lags, 50).toFixed(1)} ms, p99 ${lagP99.at(-1)!.toFixed(1)} ms`,
  );
}

const rows: BenchRow[] = [
  {
    figure: 'events delivered per second',
    unit: '/s',
    baseline: 'a bare loop POSTing the same bodies to the same receiver at the same concurrency (16), without store or signature',
    relayflow: rate,
    baselineValues: bare,
    ratios: rate.map((v, i) => v / bare[i]!),
  },
  {
    figure: 'event lag p99 (write to arrival)',
    unit: 'ms',
    baseline: 'none',
    relayflow: lagP99,
    baselineValues: [],
    ratios: [],
    target: { of: 'value', op: '<=', bound: 1_000 },
  },
];
emitBenchResult({
  bench: 'events',
  rounds: P.rounds,
  rows,
  notes: [
    `${profile} profile: ${P.processes} processes x ${P.perProcess} events each, delivered in order per process by one deliverer (concurrency ${CONCURRENCY}); lag: ${P.paced.perSecond} events/s for ${P.paced.seconds} s over 50 processes`,
    'the store on PostgreSQL; the receiver answers 204 at once; lag counts from the event written to the outbox (a process writes it in the workflow task that changed its state)',
  ],
});
receiver.close();
await store.sql.close();
await pg.stop();
exitWhenDone();
