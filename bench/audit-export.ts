// Audit export benchmark: GET /v1/audit/export streaming an archive of many closed processes (PostgreSQL, as a
// deployment keeps it) as JSON Lines over HTTP, read to the end by a client that keeps nothing. The archive is
// filled with one real-sized sealed timeline copied under distinct process and run IDs (SQL, seconds), so the
// export decrypts and writes every row as it would. Rows: how much the API's heap grows at most while the whole
// export streams (bounded: a batch of rows, not the archive), and the rate it streams at.
//   RELAYFLOW_BENCH_PROFILE=short|full npx tsx bench/audit-export.ts
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { AesGcmPayloadCodec } from '../common/codec.js';
import { exportRoute } from '../api/routes/audit/export.js';
import { AuditArchive, openCampaignStore } from '../store/index.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { benchProfile, exitWhenDone, log } from './bench-stack.js';
import { emitBenchResult, type BenchRow } from './result.js';

const profile = benchProfile();
const P = profile === 'short' ? { processes: 10_000, rounds: 2 } : { processes: 100_000, rounds: 2 };
const MB = 1024 * 1024;

const pg = await startPostgres();
const store = await openCampaignStore({ url: pg.url, dataDir: '' });
const archive = new AuditArchive(store.sql, new AesGcmPayloadCodec([{ id: 'bench', key: randomBytes(32) }]));

// One verification-sized timeline (about 20 entries), sealed as the archiver seals it, then copied in SQL.
const entry = (i: number) => ({
  at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  runId: '01a224a6-cf17-7041-b165-2329d07ef43d',
  eventId: i + 1,
  kind: i === 0 ? 'started' : 'platform call',
  summary: i === 0 ? 'verification started by a8d552e4b86e' : `startVerification: completed, ${20 + i} ms`,
  details: { activity: 'startVerification', outcome: 'completed', attempts: 1, input: { identity: '+***77', method: 'sms' }, result: { id: 'V'.repeat(26) } },
});
const timeline = Array.from({ length: 20 }, (_, i) => entry(i));
const seedId = 'verification:seed';
await archive.append({
  processId: seedId,
  runId: 'seed-run',
  firstRunId: 'seed-run',
  kind: 'verification',
  state: 'SUCCESSFUL',
  executionStatus: 'COMPLETED',
  startedAt: '2026-01-01T00:00:00.000Z',
  closedAt: '2026-01-01T00:00:01.000Z',
  businessKey: 'seed',
  summary: { lastChangeAt: '2026-01-01T00:00:01.000Z', reason: 'code entered' },
  timeline: { masked: timeline, unmasked: timeline },
});
const fillStart = performance.now();
await store.sql.query(
  `INSERT INTO relayflow_audit_archive (process_id, n, run_id, first_run_id, kind, state, execution_status, started_at, closed_at,
     business_key, summary, timeline, prev_hash, hash)
   SELECT 'verification:bench-' || g, 1, 'run-' || g, 'run-' || g, kind, state, execution_status,
          started_at + g * interval '1 millisecond', closed_at + g * interval '1 millisecond', 'bench-' || g, summary, timeline, prev_hash, hash
     FROM relayflow_audit_archive, generate_series(1, $1::integer) g WHERE run_id = 'seed-run'`,
  [P.processes],
);
await store.sql.query('ANALYZE relayflow_audit_archive');
log(`archive filled with ${P.processes} processes in ${((performance.now() - fillStart) / 1000).toFixed(1)} s`);

const app = Fastify();
await app.register(exportRoute, { archive, checkUnmask: () => undefined });
await app.listen({ host: '127.0.0.1', port: 0 });
const port = (app.server.address() as AddressInfo).port;

/** One export read to the end: lines, bytes, seconds, and the heap's peak growth over its level before (MB). */
async function exportRound(): Promise<{ lines: number; bytes: number; seconds: number; heapGrowthMb: number }> {
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 20);
  const start = performance.now();
  let bytes = 0;
  let lines = 0;
  await new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/audit/export?from=2025-01-01T00:00:00Z&to=2027-01-01T00:00:00Z&kind=verification' }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { lines, bytes, seconds: (performance.now() - start) / 1000, heapGrowthMb: (peak - before) / MB };
}

const growth: number[] = [];
const rate: number[] = [];
let exportedMb = 0;
for (let r = 0; r < P.rounds; r++) {
  const res = await exportRound();
  if (res.lines !== P.processes + 1) throw new Error(`exported ${res.lines} lines, expected ${P.processes + 1}`);
  growth.push(res.heapGrowthMb);
  rate.push(res.lines / res.seconds);
  exportedMb = res.bytes / MB;
  log(`round ${r + 1}: ${res.lines} lines, ${exportedMb.toFixed(0)} MB in ${res.seconds.toFixed(1)} s; heap grew at most ${res.heapGrowthMb.toFixed(1)} MB`);
}

const rows: BenchRow[] = [
  {
    figure: `audit export of ${P.processes.toLocaleString('en')} archived processes: peak heap growth`,
    unit: 'MB',
    baseline: 'none',
    relayflow: growth,
    baselineValues: [],
    ratios: [],
    // Bounded: a batch of rows and the stream's buffers, far below the export itself (hundreds of MB in full).
    target: { of: 'value', op: '<=', bound: 64 },
  },
  {
    figure: 'audit export rate',
    unit: 'processes/s',
    baseline: 'none',
    relayflow: rate,
    baselineValues: [],
    ratios: [],
  },
];
emitBenchResult({
  bench: 'audit-export',
  rounds: P.rounds,
  rows,
  notes: [
    `${profile} profile: ${P.processes} archived processes, one verification-sized timeline each (${exportedMb.toFixed(0)} MB of JSON Lines), streamed by GET /v1/audit/export from PostgreSQL over HTTP`,
    'heap growth: the highest heapUsed sampled every 20 ms during the export, less heapUsed before it (API and client in one process)',
  ],
});
await app.close();
await store.sql.close();
await pg.stop();
exitWhenDone();
