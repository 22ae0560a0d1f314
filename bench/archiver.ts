// Audit archiver benchmark: does the archiver (workers/audit/) keep up with the processes a deployment closes?
// Real verifications are closed through the API as fast as this stack closes them (the highest process rate the
// table measures: the verification bench's throughput), on the deployment's topology (Temporal dev server, the
// store on PostgreSQL, the sandbox in a process of its own, the worker and the API in this one). Each round:
//   - catch-up: N verifications close while the archiver is stopped, then it archives them; its rate (runs/s,
//     from its start to the last row written) over the close rate of the same N (the baseline) is the figure,
//     target >= 1: it archives faster than processes close;
//   - live: N more close while the archiver runs beside them, looking every second; the lag of each run from its
//     close (Temporal's close time) to its archived row, p99.
//   RELAYFLOW_BENCH_PROFILE=short|full npx tsx bench/archiver.ts
import { AesGcmPayloadCodec } from '../common/codec.js';
import { createLogger } from '../common/logger.js';
import { nodeTransport } from '../common/http-transport.js';
import { AuditArchive, type ArchivedRun } from '../store/index.js';
import { ARCHIVE_CONCURRENCY, AuditArchiver } from '../workers/audit/archiver.js';
import { runEvents } from '../processes/shared/audit/run-events.js';
import { processStatusQuery } from '../contracts/process-status.js';
import { Decoder, maskPhones } from '../processes/shared/audit/decode.js';
import { TimelineBuilder, type TimelineEntry } from '../processes/shared/audit/timeline.js';
import { TEST_API_KEY } from '../test/helpers/harness.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { profiled } from './cpu-profile.js';
import { benchProfile, exitWhenDone, log, shutdown, sleep, startChild, startStack } from './bench-stack.js';
import { emitBenchResult, type BenchRow } from './result.js';
import { percentile, pool } from './stats.js';

const profile = benchProfile();
const P = profile === 'short' ? { processes: 40, rounds: 2, warmUp: 10 } : { processes: 150, rounds: 3, warmUp: 20 };
/** Verifications in flight at once: the verification bench's load. */
const LOAD_CONCURRENCY = 20;
/** How often the archiver looks in the live phase (a deployment's default is 30 s: the lag is mostly this wait). */
const LIVE_INTERVAL_MS = 1_000;
const ARCHIVE_TIMEOUT_MS = 120_000;

const pg = await startPostgres();
const platform = await startChild(['sandbox/main.ts'], { SANDBOX_PORT: '0', RELAYFLOW_LOG_LEVEL: 'warn' }, /sandbox listening on (\S+)/);
process.once('exit', () => platform.child.kill('SIGKILL'));
const stack = await startStack({
  sandboxUrl: platform.match[1]!,
  // The worker's own archiver makes its first pass at start and then waits an hour: the bench's archiver is measured alone.
  env: { RELAYFLOW_VERIFICATION_GUARD_MAX: '1000000', RELAYFLOW_DATABASE_URL: pg.url, RELAYFLOW_AUDIT_ARCHIVE_INTERVAL_MS: '3600000' },
});
const { server, h } = stack;

/** When each run's row was written (epoch ms), by run ID: the archive the bench's archiver writes to. */
const archivedAt = new Map<string, { at: number; closedAt: number }>();
let onArchived: (() => void) | undefined;
class TimedArchive extends AuditArchive {
  override async append(run: ArchivedRun): Promise<'archived' | 'there'> {
    const outcome = await super.append(run);
    if (outcome === 'archived') archivedAt.set(run.runId, { at: Date.now(), closedAt: Date.parse(run.closedAt) });
    onArchived?.();
    return outcome;
  }
}
const codec = new AesGcmPayloadCodec(h.config.codecKeys);
const archive = new TimedArchive(h.store.sql, codec);
const archiverLog = createLogger({ name: 'bench-archiver', level: 'warn' });
const archiver = (intervalMs: number) => new AuditArchiver(h.client, archive, codec, { keepDays: 2_557, intervalMs }, archiverLog, h.config.taskQueue);

let batchNo = 0;
/** Closes `n` verifications through the API (start, the code from the sandbox's phone, report): their process IDs and seconds. */
async function closeVerifications(n: number): Promise<{ processIds: string[]; seconds: number }> {
  batchNo += 1;
  const auth = { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' };
  const call = (url: string, method: string, body?: unknown) =>
    nodeTransport(new URL(url), {
      method,
      headers: body === undefined ? {} : auth,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
  const processIds: string[] = [];
  const t0 = performance.now();
  await pool(n, LOAD_CONCURRENCY, async (i) => {
    // A fresh number per verification (a Swedish mobile: +4673 and seven digits), as the verification bench's.
    const identity = `+4673${batchNo % 10}${process.pid % 10}${String(i).padStart(5, '0')}`;
    const started = await call(`${h.apiUrl}/v1/verifications`, 'POST', { identity, method: 'sms' });
    if (started.status !== 201) throw new Error(`start failed: ${started.status} ${started.text}`);
    const { processId, current } = JSON.parse(started.text) as { processId: string; current: { verificationId: string } };
    const inbox = JSON.parse((await call(`${h.sandbox.url}/_sandbox/verification/phones/${encodeURIComponent(identity)}`, 'GET')).text) as {
      messages: { verificationId: string; code: string }[];
    };
    const code = inbox.messages.find((m) => m.verificationId === current.verificationId)!.code;
    const outcome = JSON.parse((await call(`${h.apiUrl}/v1/verifications/${encodeURIComponent(processId)}/report`, 'POST', { code })).text) as {
      result?: string;
    };
    if (outcome.result !== 'SUCCESSFUL') throw new Error(`report failed: ${JSON.stringify(outcome)}`);
    processIds.push(processId);
  });
  return { processIds, seconds: (performance.now() - t0) / 1000 };
}

/** The run IDs of the processes, once each has closed (a verification closes just after its report is answered). */
async function closedRuns(processIds: string[]): Promise<string[]> {
  const runIds: string[] = [];
  await pool(processIds.length, 8, async (i) => {
    const handle = h.client.workflow.getHandle(processIds[i]!);
    await handle.result().catch(() => undefined);
    runIds[i] = (await handle.describe()).runId;
  });
  return runIds;
}

/** Waits until every run is archived; the time the last one was (epoch ms). */
function allArchived(runIds: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${runIds.filter((r) => !archivedAt.has(r)).length} runs not archived in time`)), ARCHIVE_TIMEOUT_MS);
    onArchived = () => {
      if (!runIds.every((r) => archivedAt.has(r))) return;
      clearTimeout(timer);
      onArchived = undefined;
      resolve(Math.max(...runIds.map((r) => archivedAt.get(r)!.at)));
    };
    onArchived();
  });
}

/**
 * How many of the runs were archived without a reason their status gives (asked again here, with time to answer):
 * the archiver writes a run once, so one written while its status query went unanswered would lack them for good.
 */
async function withoutReasons(runIds: string[]): Promise<number> {
  let missing = 0;
  for (const runId of runIds) {
    const run = (await archive.run(runId))!;
    // A run archived with its status tells its start "state PENDING: sms sent": only the others are asked again.
    if ((run.timeline.masked as TimelineEntry[]).some((e) => e.kind === 'state' && e.details.reason)) continue;
    const status = await h.client
      .withDeadline(Date.now() + 30_000, () => h.client.workflow.getHandle(run.processId, runId).query(processStatusQuery))
      .catch(() => undefined);
    if (!status) continue;
    const told = new TimelineBuilder(new Decoder(codec), maskPhones);
    told.entries.push(...structuredClone(run.timeline.masked as TimelineEntry[]));
    told.mergeReasons(status.history);
    if (JSON.stringify(told.entries) !== JSON.stringify(run.timeline.masked)) missing++;
  }
  return missing;
}
const reasonless = { catchUp: 0, live: 0 };
const reasonlessPerRound: number[] = [];

/** N close with the archiver stopped; then it archives them: its runs/s and the close rate. */
let lastCatchUp: { processId: string; runId: string }[] = [];
async function catchUpRound(round: number): Promise<{ archiverRate: number; closeRate: number }> {
  const closed = await closeVerifications(P.processes);
  const runIds = await closedRuns(closed.processIds);
  lastCatchUp = runIds.map((runId, i) => ({ processId: closed.processIds[i]!, runId }));
  // Visibility records a close a moment after it: the archiver starts once every run could be listed.
  await sleep(1_000);
  const a = archiver(LIVE_INTERVAL_MS);
  const t0 = Date.now();
  const running = profiled(round === 0 ? process.env.RELAYFLOW_BENCH_CPU_PROFILE : undefined, async () => {
    const done = allArchived(runIds);
    const loop = a.run();
    const last = await done;
    a.stop();
    await loop;
    return last;
  });
  const last = await running;
  reasonless.catchUp += await withoutReasons(runIds);
  return { archiverRate: runIds.length / ((last - t0) / 1000), closeRate: P.processes / closed.seconds };
}

/** N close while the archiver runs: each run's lag from its close to its row (ms), sorted, and the close rate. */
async function liveRound(): Promise<{ lags: number[]; closeRate: number }> {
  const a = archiver(LIVE_INTERVAL_MS);
  const loop = a.run();
  const closed = await closeVerifications(P.processes);
  const runIds = await closedRuns(closed.processIds);
  await allArchived(runIds);
  a.stop();
  await loop;
  reasonless.live += await withoutReasons(runIds);
  const lags = runIds.map((r) => archivedAt.get(r)!.at - archivedAt.get(r)!.closedAt).sort((x, y) => x - y);
  return { lags, closeRate: P.processes / closed.seconds };
}

/**
 * Where an archived run's time goes, over the last catch-up's runs: the two reads of Temporal the archiver makes
 * per run, each alone at the archiver's concurrency (the history, as a bare read; the status query, which the
 * worker answers by replaying the closed run).
 */
async function readRates(runs: { processId: string; runId: string }[]): Promise<{ histories: number; queries: number }> {
  const rate = async (read: (r: { processId: string; runId: string }) => Promise<unknown>) => {
    const t0 = performance.now();
    await pool(runs.length, ARCHIVE_CONCURRENCY, async (i) => void (await read(runs[i]!)));
    return runs.length / ((performance.now() - t0) / 1000);
  };
  return {
    histories: await rate((r) => runEvents(h.client, r.processId, r.runId)),
    queries: await rate((r) => h.client.workflow.getHandle(r.processId, r.runId).query(processStatusQuery)),
  };
}

const archiverRate: number[] = [];
const closeRate: number[] = [];
const lagP99: number[] = [];
const liveCloseRate: number[] = [];
try {
  log(
    `audit archiver benchmark (${profile}): ${P.rounds} rounds, each ${P.processes} verifications closed before the archiver runs and ${P.processes} while it runs`,
  );
  // Warm-up: the load, the worker's cache and the archiver's first pass (which archives the warm-up's runs).
  const warm = await closeVerifications(P.warmUp);
  await allArchivedAfter(await closedRuns(warm.processIds));
  for (let round = 0; round < P.rounds; round++) {
    const c = await catchUpRound(round);
    archiverRate.push(c.archiverRate);
    closeRate.push(c.closeRate);
    const l = await liveRound();
    reasonlessPerRound.push(reasonless.catchUp + reasonless.live - reasonlessPerRound.reduce((a, b) => a + b, 0));
    lagP99.push(percentile(l.lags, 99));
    liveCloseRate.push(l.closeRate);
    log(
      `round ${round + 1}: archiver ${c.archiverRate.toFixed(1)} runs/s over closes at ${c.closeRate.toFixed(1)}/s (ratio ${(c.archiverRate / c.closeRate).toFixed(2)}); ` +
        `live at ${l.closeRate.toFixed(1)} closes/s: lag p50 ${percentile(l.lags, 50).toFixed(0)} ms, p99 ${lagP99.at(-1)!.toFixed(0)} ms, max ${l.lags.at(-1)!.toFixed(0)} ms; ` +
        `archived without reasons their status gives, so far: ${reasonless.catchUp} caught up, ${reasonless.live} live`,
    );
  }
  const reads = await readRates(lastCatchUp);
  log(`the archiver's reads alone, ${ARCHIVE_CONCURRENCY} at a time: ${reads.histories.toFixed(1)} histories/s, ${reads.queries.toFixed(1)} status queries/s`);
  const rows: BenchRow[] = [
    {
      figure: 'audit archiver runs archived per second over the process close rate',
      unit: 'runs/s',
      baseline: 'the close rate of the same verifications (closed through the API as fast as the stack closes them, 20 at a time)',
      relayflow: archiverRate,
      baselineValues: closeRate,
      ratios: archiverRate.map((v, i) => v / closeRate[i]!),
      target: { of: 'ratio', op: '>=', bound: 1 },
    },
    {
      figure: 'audit runs archived without reasons their status gives',
      unit: 'runs',
      baseline: 'none',
      relayflow: reasonlessPerRound,
      baselineValues: [],
      ratios: [],
      // A row is written once: one written while the run's status query went unanswered lacks them for good.
      target: { of: 'value', op: '<=', bound: 0 },
    },
    {
      figure: `audit archive lag p99 (close to archived row, archiver looking every ${LIVE_INTERVAL_MS / 1000} s)`,
      unit: 'ms',
      baseline: 'none',
      relayflow: lagP99,
      baselineValues: [],
      ratios: [],
    },
  ];
  emitBenchResult({
    bench: 'archiver',
    target: server.target,
    rounds: P.rounds,
    rows,
    notes: [
      `${profile} profile: per round ${P.processes} SMS verifications closed with the archiver stopped, then archived (catch-up), and ${P.processes} closed while it runs (live, closes at ${liveCloseRate.map((r) => r.toFixed(1)).join(', ')}/s)`,
      `the archiver's two reads of Temporal per run, each alone over the last catch-up's runs (${ARCHIVE_CONCURRENCY} at a time): ${reads.histories.toFixed(1)} histories/s, ${reads.queries.toFixed(1)} status queries/s (the worker replays the closed run to answer)`,
      'the archiver as the worker runs it (workers/audit/archiver.ts), in the process with the worker and the API; the store on PostgreSQL, the sandbox in a process of its own',
    ],
  });
} finally {
  await shutdown([
    ['the harness', () => h.close()],
    ['the Temporal server', () => server.stop()],
    ['the sandbox', () => platform.child.kill('SIGKILL')],
    ['PostgreSQL', () => pg.stop()],
  ]);
  exitWhenDone();
}

/** The warm-up's runs archived by one archiver's passes. */
async function allArchivedAfter(runIds: string[]): Promise<void> {
  await sleep(1_000);
  const a = archiver(LIVE_INTERVAL_MS);
  const loop = a.run();
  await allArchived(runIds);
  a.stop();
  await loop;
}
