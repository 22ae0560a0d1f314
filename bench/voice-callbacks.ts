// Voice callback benchmark: simulated incoming calls (a signed ICE, then after its answer a signed ACE) posted to
// relayflow's intake, which answers each from the call's plan (the incoming rule, the call's earlier events in the
// store) and relays event and answer to the call's process after, beside a baseline in the same run on the same
// machine and client: a bare Fastify route that checks the signature and answers the same SVAML itself. Targets:
// throughput >= 0.5 of the baseline, relayflow p99 answer <= 1 s, no fallbacks. After each relayflow burst it
// measures how long until every answer given is recorded in its call's process (read back from each process).
//   RELAYFLOW_BENCH_PROFILE=short|full npm run bench:voice -- [calls] [concurrency] [rounds]
//   short: 200 calls, 2 rounds (about 40 s with the start); full (the default): 400 calls, 3 rounds (600 took 235 s on a loaded machine, near the table's 4 min bound).
// The store is a throwaway PostgreSQL (what a deployment runs, RELAYFLOW_DATABASE_URL), not the embedded PGlite
// of a dev setup. The last line is the table's BENCH_JSON (bench/result.ts).
import Fastify from 'fastify';
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { ulid } from 'ulid';
import { cachedWorkflowBundle, CHECKOUT_BUNDLE_CACHE } from '../workers/bundle-cache.js';
import { figures, percentile, pool, type Samples } from './stats.js';
import { startHarness, TEST_API_KEY } from '../test/helpers/harness.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { nodeTransport } from '../common/http-transport.js';
import { signApplicationRequest, verifyApplicationCallback } from '../common/signing.js';
import { rawBodyPlugin } from '../api/plugins/raw-body.js';
import { VOICE_CALLBACK_PATH } from '../contracts/callbacks.js';
import { workflowIds } from '../processes/kinds.js';
import { processStatusQuery } from '../contracts/process-status.js';
import { VoiceCallStore } from '../store/voice-calls.js';
import { benchProfile } from './bench-stack.js';
import { benchTarget, startBenchTemporal } from './target.js';
import { emitBenchResult, type BenchRow } from './result.js';

const profileName = benchProfile();
const profile = profileName === 'short' ? { calls: 200, rounds: 2, warmUp: 20 } : { calls: 400, rounds: 3, warmUp: 40 };
const calls = Number(process.argv[2] ?? profile.calls);
const concurrency = Number(process.argv[3] ?? 10);
const rounds = Number(process.argv[4] ?? profile.rounds);
/** How long after a burst the answers may take to be recorded before the missing ones are counted. */
const RECORD_WAIT_MS = profileName === 'short' ? 15_000 : 60_000;
const CONNECT_TO = '+46700000002';
const t00 = Date.now();
const log = (m: string) => process.stdout.write(`${process.env.BENCH_TIMES ? `[${((Date.now() - t00) / 1000).toFixed(1)}s] ` : ''}${m}\n`);

log(`starting the Temporal server (target ${benchTarget()}) and PostgreSQL`);
const [server, pg] = await Promise.all([startBenchTemporal({ log }), startPostgres()]);
log(`target: ${server.describe}`);
process.env.TEMPORAL_ADDRESS = server.address;
log('building the workflow bundle');
process.env.RELAYFLOW_WORKFLOW_BUNDLE = (await cachedWorkflowBundle(CHECKOUT_BUNDLE_CACHE)).path;
log('starting the sandbox, a worker and the API');
// Processes must not read the platform during the run: only the DiCE ends them.
const h = await startHarness({ env: { RELAYFLOW_VOICE_CHECK_EVERY_MS: '600000', RELAYFLOW_DATABASE_URL: pg.url } });
const { appKey, appSecret } = h.config.platform.credentials;
const never = new AbortController().signal;
setMaxListeners(0, never); // one abort listener per request in flight
const post = (url: string, body: string, headers: Record<string, string>) => nodeTransport(new URL(url), { method: 'POST', headers, body, signal: never });
const signed = (url: string, payload: Record<string, unknown>) => {
  const body = JSON.stringify({ ...payload, timestamp: new Date().toISOString() });
  return post(url, body, signApplicationRequest({ appKey, appSecret, method: 'POST', path: VOICE_CALLBACK_PATH, contentType: 'application/json', body }));
};

// The baseline: the same signature check over the raw bytes and the same JSON parser, answering the SVAML itself.
const baseline = Fastify({ logger: false });
await baseline.register(rawBodyPlugin);
baseline.post(VOICE_CALLBACK_PATH, async (req, reply) => {
  const ok = verifyApplicationCallback(req, appKey, appSecret);
  if (!ok.ok) return reply.status(401).send({ error: ok.reason });
  const event = (req.body as { event?: string }).event;
  return event === 'ice' ? { action: { name: 'connectPstn', number: CONNECT_TO } } : { action: { name: 'continue' } };
});
const baselineUrl = `${await baseline.listen({ host: '127.0.0.1', port: 0 })}${VOICE_CALLBACK_PATH}`;
const relayflowUrl = `${h.apiUrl}${VOICE_CALLBACK_PATH}`;

/** fallbacks: each fallback answer, as `<event> <ms>` (the intake's log says why: TEST_LOG_LEVEL=warn). */
interface Run extends Samples {
  fallbacks: string[];
  byProcess: number;
  callIds: string[];
  hostBusy: number;
  recordMs?: number;
  missing?: number;
}

/** The machine's CPU ticks (every process, not only this bench's), to tell a saturated host; Linux only. */
function cpuTicks(): { idle: number; all: number } {
  try {
    const t = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { idle: t[3]! + t[4]!, all: t.reduce((a, b) => a + b, 0) };
  } catch {
    return { idle: NaN, all: NaN };
  }
}

/** `n` incoming calls, `concurrency` at a time: ICE, then ACE once the ICE is answered. startMs: ICE, answerMs: ACE. */
async function run(url: string, n: number): Promise<Run> {
  const r: Run = { startMs: [], answerMs: [], seconds: 0, fallbacks: [], byProcess: 0, callIds: [], hostBusy: NaN };
  const callback = async (payload: Record<string, unknown>, expected: string, into: number[]) => {
    const t = performance.now();
    const res = await signed(url, { ...payload, version: 1, custom: '', applicationKey: appKey });
    into.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`${String(payload.event)} refused: ${res.status} ${res.text}`);
    if (res.headers['x-relayflow-answered-by'] === 'process') r.byProcess += 1;
    if (res.headers['x-relayflow-answered-by'] === 'fallback') r.fallbacks.push(`${String(payload.event)} ${into.at(-1)!.toFixed(0)} ms`);
    else if ((JSON.parse(res.text) as { action: { name: string } }).action.name !== expected) throw new Error(`${String(payload.event)} answered ${res.text}`);
  };
  const [t0, c0] = [performance.now(), cpuTicks()];
  await pool(n, concurrency, async () => {
    const callid = ulid();
    r.callIds.push(callid);
    await callback(
      {
        event: 'ice',
        callid,
        callResourceUrl: `${h.config.platform.urls.voice}/calling/v1/calls/id/${callid}`,
        cli: '+46700000001',
        to: { type: 'number', endpoint: '+4685000101' },
        domain: 'pstn',
        originationType: 'PSTN',
        callHeaders: [],
      },
      'connectPstn',
      r.startMs,
    );
    await callback({ event: 'ace', callid }, 'continue', r.answerMs);
  });
  r.seconds = (performance.now() - t0) / 1000;
  const c1 = cpuTicks();
  r.hostBusy = 1 - (c1.idle - c0.idle) / (c1.all - c0.all);
  return r;
}

const calls_ = new VoiceCallStore(h.store.sql);
type Answers = Array<{ event: string; action: string; by: string }>;
/**
 * From the end of a burst until every answer given (ICE connectPstn, ACE continue, each once) is recorded in its
 * call's process, read back from each process (the status query); those still missing after RECORD_WAIT_MS are counted.
 */
async function recorded(r: Run): Promise<void> {
  const t0 = performance.now();
  let left = [...r.callIds];
  const ok = (a: Answers) => a.length === 2 && a[0]!.event === 'ice' && a[0]!.action === 'connectPstn' && a[1]!.event === 'ace' && a[1]!.action === 'continue';
  const wrong: string[] = [];
  while (left.length && performance.now() - t0 < RECORD_WAIT_MS) {
    // The outbox empty first (cheap), then each process read back.
    if ((await calls_.countUnrelayed()) > 0) {
      await new Promise((res) => setTimeout(res, 50));
      continue;
    }
    const still: string[] = [];
    await pool(left.length, concurrency, async (i) => {
      const callId = left[i]!;
      try {
        const s = await h.client.workflow.getHandle(workflowIds['voice-incoming'](callId)).query(processStatusQuery);
        const answers = (s.details as { call: { answers: Answers } }).call.answers;
        if (ok(answers)) return;
        if (answers.length > 2) wrong.push(`${callId}: ${answers.map((a) => `${a.event} ${a.action} ${a.by}`).join(', ')}`);
      } catch {
        // Not started yet.
      }
      still.push(callId);
    });
    left = still;
    if (left.length) await new Promise((res) => setTimeout(res, 50));
  }
  r.recordMs = performance.now() - t0;
  r.missing = left.length;
  if (wrong.length) log(`  answers recorded more than once: ${wrong.slice(0, 5).join('; ')}`);
}

/** Ends the calls' processes (not measured): a DiCE per call, so no process is left waiting for its periodic read. */
async function hangUp(r: Run): Promise<void> {
  let refused = 0;
  await pool(r.callIds.length, concurrency, async (i) => {
    const res = await signed(relayflowUrl, { event: 'dice', callid: r.callIds[i]!, reason: 'CALLERHANGUP', result: 'ANSWERED', duration: 1, custom: '' });
    if (res.status !== 200) refused += 1;
  });
  if (refused) log(`  ${refused} DiCE refused`);
}

const ms = (v: number) => `${v.toFixed(1).padStart(7)} ms`;
function report(name: string, runs: Run[]): { perSecond: number; p99: number; ice99: number; ace99: number } {
  const f = figures(runs);
  const both = runs.flatMap((r) => [...r.startMs, ...r.answerMs]).sort((a, b) => a - b);
  const fallbacks = runs.reduce((s, r) => s + r.fallbacks.length, 0);
  log(
    `${name.padEnd(9)} ${f.perSecond.toFixed(1).padStart(7)} calls/s   ICE p50 ${ms(f.start.p50)} p99 ${ms(f.start.p99)}   ACE p50 ${ms(f.answer.p50)} p99 ${ms(f.answer.p99)}   all p50 ${ms(percentile(both, 50))} p99 ${ms(percentile(both, 99))}   fallbacks ${fallbacks}   host CPU busy ${(100 * Math.max(...runs.map((r) => r.hostBusy))).toFixed(0)}%`,
  );
  return { perSecond: f.perSecond, p99: percentile(both, 99), ice99: f.start.p99, ace99: f.answer.p99 };
}

try {
  log('incoming rule: every number connects to ' + CONNECT_TO);
  const rule = await nodeTransport(new URL(`${h.apiUrl}/v1/voice/incoming-rules/default`), {
    method: 'PUT',
    headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ script: { start: { type: 'connect', number: CONNECT_TO } } }),
    signal: never,
  });
  if (rule.status !== 200) throw new Error(`incoming rule refused: ${rule.status} ${rule.text}`);

  log(
    `voice callback benchmark (${profileName}): ${rounds} rounds of ${calls} calls (ICE + ACE) each side, ${concurrency} at a time (warm-up ${Math.min(profile.warmUp, calls)} each first)`,
  );
  await run(baselineUrl, Math.min(profile.warmUp, calls));
  await hangUp(await run(relayflowUrl, Math.min(profile.warmUp, calls)));
  const base: Run[] = [];
  const rf: Run[] = [];
  // A pause before each run: the server finishes the previous run's background work (closing workflows) first.
  const settle = () => new Promise((r) => setTimeout(r, profileName === 'short' ? 500 : 3_000));
  const measureBaseline = async () => {
    await settle();
    base.push(await run(baselineUrl, calls));
  };
  const measureRelayflow = async () => {
    await settle();
    rf.push(await run(relayflowUrl, calls));
    await recorded(rf.at(-1)!);
    log(`  relayflow burst: every answer recorded in its process ${rf.at(-1)!.recordMs!.toFixed(0)} ms after the burst; missing ${rf.at(-1)!.missing}`);
    await hangUp(rf.at(-1)!);
  };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      await measureBaseline();
      await measureRelayflow();
    } else {
      await measureRelayflow();
      await measureBaseline();
    }
    log(`round ${round + 1}:`);
    const b = report('baseline', [base[round]!]);
    const r = report('relayflow', [rf[round]!]);
    log(`  throughput ratio ${(r.perSecond / b.perSecond).toFixed(2)}`);
  }
  const best = (runs: Run[]) => runs.reduce((a, b) => (b.answerMs.length / b.seconds > a.answerMs.length / a.seconds ? b : a));
  log('best round of each side:');
  const bb = report('baseline', [best(base)]);
  const rb = report('relayflow', [best(rf)]);
  log(`  throughput ratio ${(rb.perSecond / bb.perSecond).toFixed(2)}`);
  log('all rounds:');
  const b = report('baseline', base);
  const r = report('relayflow', rf);
  const ratio = r.perSecond / b.perSecond;
  const fallbacks = rf.flatMap((x) => x.fallbacks);
  log(`${ratio >= 0.5 ? 'PASS' : 'FAIL'} throughput ratio relayflow/baseline ${ratio.toFixed(2)} (target >= 0.50)`);
  // Each kind of callback must meet it: a slow tail in ICEs alone is diluted in the p99 of all callbacks.
  const worst = Math.max(r.p99, r.ice99, r.ace99);
  log(
    `${worst <= 1000 ? 'PASS' : 'FAIL'} relayflow callback answer p99 (all ${r.p99.toFixed(1)} ms, ICE ${r.ice99.toFixed(1)} ms, ACE ${r.ace99.toFixed(1)} ms): worst ${(worst / 1000).toFixed(2)} of the 1 s target`,
  );
  const missingAll = rf.reduce((s, x) => s + x.missing!, 0);
  log(
    `${missingAll === 0 ? 'PASS' : 'FAIL'} answers recorded in their process: ${missingAll} missing; after each burst ${rf.map((x) => `${x.recordMs!.toFixed(0)} ms`).join(', ')}`,
  );
  log(
    `${fallbacks.length === 0 ? 'PASS' : 'FAIL'} fallbacks ${fallbacks.length} of ${rf.length * calls * 2} relayflow callbacks (target 0)${fallbacks.length ? `: ${fallbacks.slice(0, 10).join(', ')}` : ''}`,
  );
  // The DiCEs should have ended every process: a sample of the last run's, read back once relayed.
  for (const t = Date.now(); (await calls_.countUnrelayed()) > 0 && Date.now() - t < (profileName === 'short' ? 3_000 : 20_000);)
    await new Promise((res) => setTimeout(res, 100));
  await new Promise((res) => setTimeout(res, 1_000));
  const sample = rf.at(-1)!.callIds.slice(-10);
  const closed = await Promise.all(sample.map(async (c) => (await h.client.workflow.getHandle(workflowIds['voice-incoming'](c)).describe()).status.name));
  log(`processes ended by their DiCE, of ${sample.length} sampled: ${closed.filter((s) => s === 'COMPLETED').length} (${[...new Set(closed)].join(', ')})`);

  const p99 = (x: Run) =>
    Math.max(
      ...[x.startMs, x.answerMs, [...x.startMs, ...x.answerMs]].map((v) =>
        percentile(
          [...v].sort((a, b) => a - b),
          99,
        ),
      ),
    );
  const perSecond = (x: Run) => x.answerMs.length / x.seconds;
  const baselineText =
    'a bare Fastify route in the same process: the same signature check and JSON parser, answering the same SVAML without Temporal or a store';
  const rows: BenchRow[] = [
    {
      figure: 'voice callback answers',
      unit: 'calls/s',
      baseline: baselineText,
      relayflow: rf.map(perSecond),
      baselineValues: base.map(perSecond),
      ratios: rf.map((x, i) => perSecond(x) / perSecond(base[i]!)),
      target: { of: 'ratio', op: '>=', bound: 0.5 },
    },
    {
      figure: 'voice answer p99',
      unit: 'ms',
      baseline: baselineText,
      relayflow: rf.map(p99),
      baselineValues: base.map(p99),
      ratios: [],
      target: { of: 'value', op: '<=', bound: 1000 },
    },
    {
      figure: 'voice answers recorded in the process after a burst',
      unit: 'ms',
      baseline: "none (relayflow alone: from the end of a burst until every answer is read back from its call's process)",
      relayflow: rf.map((x) => x.recordMs!),
      baselineValues: [],
      ratios: [],
    },
  ];
  const missing = rf.reduce((s, x) => s + x.missing!, 0);
  const byProcess = rf.reduce((s, x) => s + x.byProcess, 0);
  emitBenchResult({
    bench: 'voice-callbacks',
    target: server.target,
    rounds: rf.length,
    rows,
    notes: [
      `voice: ${fallbacks.length} fallbacks of ${rf.length * calls * 2} relayflow callbacks (target 0)${fallbacks.length ? `: ${fallbacks.slice(0, 5).join(', ')}` : ''}; ${byProcess} answered by the process (update path) instead of the plan`,
      `voice: ${missing} answers given but not recorded in their process within ${RECORD_WAIT_MS / 1000} s of the burst (target 0)`,
      `voice: ${calls} calls (ICE + ACE) per round, ${concurrency} at a time, profile ${profileName}; host CPU busy during relayflow bursts up to ${(100 * Math.max(...rf.map((x) => x.hostBusy))).toFixed(0)}%`,
    ],
  });
} finally {
  // The figures are out: a shutdown that hangs must not keep the command running.
  setTimeout(() => {
    log('shutdown took over 60 s; exiting anyway');
    process.exit(1);
  }, 60_000).unref();
  log(`stopping: baseline server, relayflow worker, API and sandbox, Temporal server (${server.target})`);
  await baseline.close();
  await h.close();
  await Promise.all([server.stop(), pg.stop()]);
  log('stopped');
}
