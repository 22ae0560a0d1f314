// Campaign benchmark: conversation campaigns through the API, sent by a send worker in its own process over
// PostgreSQL (the deployment's topology), against the sandbox in its own process (as the platform is).
// The limit is the app's outbound rate, the pace its MT queue drains at (spec Limits: "MT ingress queue ... drained
// at 20 messages per second by default"; the sandbox queues faster sends instead of refusing them, and the project's
// 800 requests per second is the limit that answers 429). The figure is the rate the platform accepted the
// campaign's messages at (first to last acceptance) as a share of that limit: at most ~1 for a sender that keeps
// pace; a sender that floods the queue could show more and get nothing out sooner, so each round also reports the
// queue's peak length.
// Beside it, measured in the same round: a bare paced loop of the same platform client at the same limit (no
// Temporal, no store). Each round is a fresh campaign on a fresh app (and the loop on another), the order alternating.
// Ends with the table protocol (bench/result.ts): send rate / limit (target >= 0.95 every round), 429 share
// (target <= 1%), Temporal actions per 1,000 messages (its budget in bench/budgets.ts: the history's actions plus a bound
// on the send chunks' heartbeats, which the history does not hold); duplicates, losses, queue peaks and memory in the notes.
//   npm run bench:campaign -- [recipients] [rate] [rounds]
//   RELAYFLOW_BENCH_PROFILE=short: 2,000 at 200/s, 1 round (under 40 s with startup); full (the default): 8,000 at
//   200/s, 3 rounds (under 4 minutes). Arguments override the profile.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { cachedWorkflowBundle, CHECKOUT_BUNDLE_CACHE } from '../workers/bundle-cache.js';
import { generateCodecKey } from '../common/codec.js';
import { createLogger } from '../common/logger.js';
import { createPlatformClients } from '../platform/index.js';
import { startHarness, TEST_API_KEY } from '../test/helpers/harness.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { conversationStats, createApp, numbers, sandboxJson } from '../test/helpers/campaigns.js';
import { countActions, eventsByType, type ActionCounts } from './action-counts.js';
import { heartbeatingActivities } from '../processes/campaigns/workflow/campaign-activities.js';
import { pacedLoop } from './paced-loop.js';
import { benchProfile, startChild } from './bench-stack.js';
import { benchTarget, startBenchTemporal } from './target.js';
import { emitBenchResult, type BenchRow } from './result.js';
import { budgetFigure, budgetTarget } from './budgets.js';

const profile = benchProfile() === 'short' ? { recipients: 2_000, rate: 200, rounds: 1 } : { recipients: 8_000, rate: 200, rounds: 3 };
const recipients = Number(process.argv[2] ?? profile.recipients);
const rate = Number(process.argv[3] ?? profile.rate);
const rounds = Number(process.argv[4] ?? profile.rounds);
const baselineCount = Math.max(500, Math.min(5_000, Math.round(recipients / 4)));
const log = (m: string) => process.stdout.write(`${m}\n`);
const r3 = (n: number) => Math.round(n * 1000) / 1000;
/** Its row in bench/budgets.ts. */
const CAMPAIGN_BUDGET = '1,000 campaign messages';

log(`starting the Temporal server (target ${benchTarget()}) and PostgreSQL`);
const server = await startBenchTemporal({ log });
log(`target: ${server.describe}`);
process.env.TEMPORAL_ADDRESS = server.address;
const pg = await startPostgres();
process.env.RELAYFLOW_WORKFLOW_BUNDLE = (await cachedWorkflowBundle(CHECKOUT_BUNDLE_CACHE)).path;
// Two customers' keys (a keys file's tenant keys) for the shared-app round.
const ACME_KEY = 'bench-acme-key-0123456789abcdef';
const GLOBEX_KEY = 'bench-globex-key-0123456789abcdef';
const keysFile = join(mkdtempSync(join(tmpdir(), 'relayflow-bench-keys-')), 'api-keys');
writeFileSync(keysFile, `${ACME_KEY} operator tenant=acme\n${GLOBEX_KEY} operator tenant=globex\n`);
const env = {
  RELAYFLOW_DATABASE_URL: pg.url,
  RELAYFLOW_CODEC_KEYS: generateCodecKey('bench'),
  RELAYFLOW_TASK_QUEUE: `bench-campaign-${process.pid}`,
  RELAYFLOW_API_KEYS_FILE: keysFile,
};
const sandbox = await startChild(['sandbox/main.ts'], { SANDBOX_PORT: '0', RELAYFLOW_LOG_LEVEL: 'warn' }, /sandbox listening on (\S+)/);
const h = await startHarness({ env, withoutSendWorker: true, sandboxUrl: sandbox.match[1]! });
// The project's budget (spec default 800/s) above the app's limit: the app's limit is the one measured.
await sandboxJson(h, 'PUT', '/_sandbox/conversation/limits', { projectRps: Math.max(800, rate * 2) });
const { child: sendWorker } = await startChild(
  ['test/helpers/send-worker-process.ts'],
  {
    ...env,
    TEMPORAL_ADDRESS: server.address,
    RELAYFLOW_API_KEYS: TEST_API_KEY,
    PLATFORM_SANDBOX_URL: h.sandbox.url,
    TEST_PUBLIC_URL: h.apiUrl,
  },
  /ready/,
);
// A crash of this process must not leave its children running.
process.once('exit', () => {
  sendWorker.kill('SIGKILL');
  sandbox.child.kill('SIGKILL');
});

/** Polls the app's sandbox counts until `n` were accepted: the times of the first and the last acceptance (to 50 ms). */
async function acceptedSpan(appId: string, n: number, timeoutMs: number): Promise<{ seconds: number }> {
  let first: number | undefined;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { accepted } = await conversationStats(h, appId);
    const now = performance.now();
    if (accepted > 0 && first === undefined) first = now;
    if (accepted >= n) return { seconds: (now - first!) / 1000 };
    if (Date.now() > deadline) throw new Error(`only ${accepted} of ${n} accepted in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Round {
  achieved: number;
  bareRate: number;
  bareRefusedShare: number;
  refusedShare: number;
  actionsPer1000: number;
  /** What the actions are made of, per 1,000 messages: by kind from the history, the heartbeats' bound, history events by type. */
  actionsMadeOf: string;
  duplicates: number;
  lost: number;
  queuePeak: number;
  bareQueuePeak: number;
}
const done: Round[] = [];

/** The most messages the app's MT queue held at once. */
async function queuePeak(appId: string): Promise<number> {
  const { apps } = await sandboxJson<{ apps: { id: string; queue: { peak: number } }[] }>(h, 'GET', '/_sandbox/conversation/apps');
  return apps.find((a) => a.id === appId)?.queue.peak ?? NaN;
}

async function bareLoop(): Promise<{ rate: number; refusedShare: number; peak: number }> {
  const baseApp = await createApp(h, rate);
  const clients = createPlatformClients(h.config.platform, { logger: createLogger({ name: 'bench', level: 'silent' }) });
  log(`  bare paced loop: ${baselineCount} messages at ${rate}/s`);
  const baseSpan = acceptedSpan(baseApp, baselineCount, 600_000);
  const base = await pacedLoop(baselineCount, rate, (i) =>
    clients.conversation.sendMessage('eu', { appId: baseApp, channel: 'SMS', identity: `+4671${String(i).padStart(7, '0')}`, text: 'bench' }),
  );
  const baseRate = (baselineCount - 1) / (await baseSpan).seconds;
  return { rate: baseRate, refusedShare: base.refused / baselineCount, peak: await queuePeak(baseApp) };
}

async function campaignRound(): Promise<Omit<Round, 'bareRate' | 'bareRefusedShare' | 'bareQueuePeak'>> {
  const appId = await createApp(h, rate);
  log(`  relayflow: a campaign of ${recipients} recipients, app limit ${rate}/s`);
  const startedAt = performance.now();
  const res = await h.api({
    method: 'POST',
    url: '/v1/campaigns/conversation',
    payload: { appId, region: 'eu', message: { text: 'bench' }, recipients: numbers(recipients) },
  });
  if (res.statusCode !== 202) throw new Error(`campaign start: ${res.statusCode} ${res.body}`);
  const { processId } = res.json() as { processId: string };
  const span = await acceptedSpan(appId, recipients, Math.max(600_000, (recipients / rate) * 4_000));
  const totalSeconds = (performance.now() - startedAt) / 1000;
  const completed = await waitForCompleted(processId);
  const stats = await conversationStats(h, appId);
  const sent = completed.counts.sent;
  const actions = await countActions(h.client, processId, heartbeatingActivities(h.config.processes.campaigns));
  const achieved = (recipients - 1) / span.seconds;
  const refusedShare = stats.refused429 / Math.max(1, stats.requests);
  const per1000 = (n: number) => (n * 1000) / recipients;
  const peak = await queuePeak(appId);
  log(
    `  achieved ${achieved.toFixed(1)}/s over ${span.seconds.toFixed(1)} s (first to last acceptance; ${totalSeconds.toFixed(1)} s from the API call): ` +
      `${(achieved / rate).toFixed(3)} of the limit; MT queue peak ${peak}`,
  );
  log(`  429 share: ${(refusedShare * 100).toFixed(2)}% of ${stats.requests} calls`);
  log(
    `  Temporal actions per 1,000 messages: ${per1000(actions.total).toFixed(1)} from the history (${describe(actions)}), ` +
      `+ at most ${per1000(actions.heartbeatsAtMost).toFixed(1)} heartbeats of the send chunks (a bound; not in the history): ${per1000(actions.total + actions.heartbeatsAtMost).toFixed(1)}; ` +
      `${actions.runs} runs, ${per1000(actions.events).toFixed(1)} history events per 1,000`,
  );
  const chunks = actions.activities.sendChunk ?? { count: 0, seconds: 0, queuedSeconds: 0 };
  const perChunk = (n: number) => (n / Math.max(1, chunks.count)).toFixed(2);
  log(
    `  chunks: ${chunks.count}, ${perChunk(chunks.seconds)} s each (last attempt) after ${perChunk(chunks.queuedSeconds)} s queued, ${(chunks.seconds / span.seconds).toFixed(2)} running at once on average`,
  );
  const duplicates = stats.duplicateRecipients;
  // Never accepted by the platform, or not recorded as sent in the store.
  const lost = Math.max(recipients - stats.distinctRecipients, recipients - sent);
  log(`  duplicates ${duplicates}, lost ${recipients - stats.distinctRecipients} (sandbox accepted ${stats.accepted}, store says sent ${sent})`);
  const actionsMadeOf =
    `${r3(per1000(actions.total))} from the history (${Object.entries(actions.byKind)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${r3(per1000(n))}`)
      .join(
        ', ',
      )}) + at most ${r3(per1000(actions.heartbeatsAtMost))} heartbeats (a bound from the send chunks' durations, the only activities that heartbeat; not in the history); ` +
    `${r3(per1000(actions.events))} history events (${Object.entries(eventsByType(actions.eventTypes))
      .map(([t, n]) => `${t} ${r3(per1000(n))}`)
      .join(', ')})`;
  return { achieved, refusedShare, actionsPer1000: per1000(actions.total + actions.heartbeatsAtMost), actionsMadeOf, duplicates, lost, queuePeak: peak };
}

/**
 * Two customers on one app (tenant keys): acme runs two campaigns of a quarter of the recipients each, globex one of
 * half, started together: the rate each sends at while all three send (from the
 * store's sent counts, 50 ms apart), as a share of its fair part: half the app's limit for each customer, acme's half
 * split between its two.
 */
async function sharedRound(): Promise<{ rates: number[]; fair: number[] }> {
  const appId = await createApp(h, rate);
  const quarter = Math.floor(recipients / 4);
  const sizes = [quarter, quarter, 2 * quarter];
  const fair = [rate / 4, rate / 4, rate / 2];
  log(`  two customers on one app, limit ${rate}/s: acme's two campaigns of ${quarter} recipients, globex's one of ${2 * quarter}`);
  const start = async (key: string, size: number, offset: number) => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/v1/campaigns/conversation',
      headers: { authorization: `Bearer ${key}` },
      payload: { appId, region: 'eu', message: { text: 'bench' }, recipients: numbers(size, offset) },
    });
    if (res.statusCode !== 202) throw new Error(`campaign start: ${res.statusCode} ${res.body}`);
    return (res.json() as { campaignId: string }).campaignId;
  };
  // Started together: acme's first alone would have sent its quarter before the others sent their first.
  const ids = await Promise.all([start(ACME_KEY, sizes[0]!, 0), start(ACME_KEY, sizes[1]!, quarter), start(GLOBEX_KEY, sizes[2]!, 2 * quarter)]);
  // Each one's sent count over time while all three are sending: from when the last started sent its first until one is done.
  const samples: { at: number; sent: number[] }[] = [];
  const deadline = Date.now() + Math.max(600_000, (recipients / rate) * 4_000);
  for (;;) {
    const counts = await Promise.all(ids.map((id) => h.store.counts(id)));
    const sample = { at: performance.now(), sent: counts.map((c) => c?.byStatus.sent ?? 0) };
    samples.push(sample);
    if (sample.sent.every((n, i) => n >= sizes[i]!)) break;
    if (Date.now() > deadline) throw new Error(`shared app: sent ${sample.sent.join(', ')} of ${sizes.join(', ')} in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const all = samples.filter((s) => s.sent.every((n, i) => n > 0 && n < sizes[i]!));
  if (all.length < 2) throw new Error('the three campaigns never sent at the same time');
  const [first, last] = [all[0]!, all.at(-1)!];
  const seconds = (last.at - first.at) / 1000;
  const rates = last.sent.map((n, i) => (n - first.sent[i]!) / seconds);
  const stats = await conversationStats(h, appId);
  log(
    `  while all three sent (${seconds.toFixed(1)} s): acme ${rates[0]!.toFixed(1)}/s and ${rates[1]!.toFixed(1)}/s (fair ${rate / 4}/s each), ` +
      `globex ${rates[2]!.toFixed(1)}/s (fair ${rate / 2}/s); ${stats.refused429} of ${stats.requests} calls refused with 429, MT queue peak ${await queuePeak(appId)}, ${stats.duplicateRecipients} duplicates`,
  );
  return { rates, fair };
}

try {
  for (let round = 1; round <= rounds; round++) {
    log(`round ${round} of ${rounds}`);
    // Alternating which goes first, so neither always meets a fresher (or more tired) machine.
    let bare: Awaited<ReturnType<typeof bareLoop>>;
    let relayflow: Awaited<ReturnType<typeof campaignRound>>;
    if (round % 2) {
      bare = await bareLoop();
      relayflow = await campaignRound();
    } else {
      relayflow = await campaignRound();
      bare = await bareLoop();
    }
    log(
      `  bare loop: ${bare.rate.toFixed(1)}/s, ${(bare.rate / rate).toFixed(3)} of the limit, ${(bare.refusedShare * 100).toFixed(2)}% refused with 429, MT queue peak ${bare.peak}; ` +
        `relayflow / bare loop ${(relayflow.achieved / bare.rate).toFixed(3)}`,
    );
    done.push({ ...relayflow, bareRate: bare.rate, bareRefusedShare: bare.refusedShare, bareQueuePeak: bare.peak });
  }
  // After the rounds, on a warm worker as theirs are (a first campaign in a fresh process runs behind its start).
  const shared = await sharedRound();
  sendWorker.kill('SIGTERM');
  const workerPeakRss = await peakRssOf(sendWorker);
  const list = (f: (r: Round) => number | string) => done.map(f).join(', ');
  const rows: BenchRow[] = [
    {
      figure: 'campaign send rate',
      unit: 'messages/s',
      baseline: "the app's limit: the rate its MT queue drains at (rate_limits.outbound, spec Limits)",
      relayflow: done.map((r) => r3(r.achieved)),
      baselineValues: done.map(() => rate),
      ratios: done.map((r) => r3(r.achieved / rate)),
      target: { of: 'ratio', op: '>=', bound: 0.95 },
    },
    {
      figure: "two customers on one app (two campaigns against one): each campaign's rate",
      unit: 'messages/s',
      baseline: "its fair part of the app's limit: half per customer, split among its campaigns (CampaignStore.reserveSends)",
      relayflow: shared.rates.map(r3),
      baselineValues: shared.fair,
      ratios: shared.rates.map((r, i) => r3(r / shared.fair[i]!)),
      target: { of: 'ratio', op: '>=', bound: 0.85 },
    },
    {
      figure: 'campaign 429 share',
      unit: '%',
      baseline: 'none',
      relayflow: done.map((r) => r3(r.refusedShare * 100)),
      baselineValues: [],
      ratios: [],
      target: { of: 'value', op: '<=', bound: 1 },
    },
    {
      figure: budgetFigure(CAMPAIGN_BUDGET, 'actions'),
      unit: 'actions',
      baseline: 'none (a budget)',
      relayflow: done.map((r) => r3(r.actionsPer1000)),
      baselineValues: [],
      ratios: [],
      target: budgetTarget(CAMPAIGN_BUDGET, 'actions')!,
    },
  ];
  const notes = [
    `${recipients} recipients per round at an app limit of ${rate}/s, ${rounds} round(s); the project's limit ${Math.max(800, rate * 2)}/s`,
    `duplicates per round: ${list((r) => r.duplicates)} (target 0); lost: ${list((r) => r.lost)} (target 0)`,
    ...done.map((r, i) => `Temporal actions per 1,000 messages, round ${i + 1}: ${r3(r.actionsPer1000)}: ${r.actionsMadeOf}`),
    `MT queue peak per round: relayflow ${list((r) => r.queuePeak)}, bare loop ${list((r) => r.bareQueuePeak)} (a sender that keeps pace keeps it short)`,
    `bare paced loop (${baselineCount} messages, no Temporal, no store) per round: ${list((r) => (r.bareRate / rate).toFixed(3))} of the limit, ` +
      `429s ${list((r) => `${(r.bareRefusedShare * 100).toFixed(2)}%`)}; relayflow / bare loop ${list((r) => (r.achieved / r.bareRate).toFixed(3))}`,
    `send worker peak RSS ${(workerPeakRss / 1024 / 1024).toFixed(0)} MiB; this process (API, workflow worker) ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
  ];
  log('');
  for (const row of rows) log(`${row.figure}: ${row.relayflow.join(', ')} ${row.unit}${row.ratios.length ? ` (ratios ${row.ratios.join(', ')})` : ''}`);
  for (const n of notes) log(n);
  log(`wall time so far: ${(performance.now() / 1000).toFixed(1)} s since this process started`);
  emitBenchResult({ bench: 'campaign', target: server.target, rounds, rows, notes });
} finally {
  setTimeout(() => {
    log('shutdown took over 60 s; exiting anyway');
    process.exit(1);
  }, 60_000).unref();
  if (sendWorker.exitCode === null) sendWorker.kill('SIGKILL');
  await h.close();
  sandbox.child.kill('SIGTERM');
  await pg.stop();
  await server.stop();
}

function describe(a: ActionCounts): string {
  return Object.entries(a.byKind)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

async function waitForCompleted(processId: string): Promise<{ counts: { sent: number } }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const view = (await h.api({ method: 'GET', url: `/v1/campaigns/${encodeURIComponent(processId)}` })).json() as { state: string; counts: { sent: number } };
    if (view.state === 'COMPLETED') return view;
    if (Date.now() > deadline) throw new Error(`campaign not completed: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The worker prints "maxrss <bytes>" as it exits. */
function peakRssOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', () => resolve(Number(/maxrss (\d+)/.exec(out)?.[1] ?? NaN)));
  });
}
