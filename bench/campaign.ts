// Campaign benchmark: one conversation campaign of many recipients through the API, sent by a send worker in
// its own process over PostgreSQL (the deployment's topology), against the sandbox in its own process (as the
// platform is) with a high per-app limit.
// Beside it, measured in the same run: a bare paced loop of the same platform client at the same limit (no
// Temporal, no store), which says what the machine and the sandbox sustain. Prints the achieved rate as a ratio
// of the configured limit (target >= 0.95) and of the bare loop, the share of calls refused with 429, Temporal
// actions per 1,000 messages (target <= 50), duplicates and losses (target 0), and the peak memory.
//   npm run bench:campaign -- [recipients=20000] [rate=200]
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDevServer } from '../scripts/lib/dev-server.js';
import { buildWorkflowBundle } from '../workers/build-bundle.js';
import { generateCodecKey } from '../common/codec.js';
import { createLogger } from '../common/logger.js';
import { createPlatformClients } from '../platform/index.js';
import { startHarness, TEST_API_KEY } from '../test/helpers/harness.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { conversationStats, createApp, numbers, sandboxJson } from '../test/helpers/campaigns.js';
import { countActions, type ActionCounts } from './action-counts.js';
import { pacedLoop } from './paced-loop.js';

const recipients = Number(process.argv[2] ?? 20_000);
const rate = Number(process.argv[3] ?? 200);
const baselineCount = Math.max(1_000, Math.min(5_000, Math.round(recipients / 4)));
const log = (m: string) => process.stdout.write(`${m}\n`);

log('starting the Temporal dev server and PostgreSQL');
const server = await startDevServer({ log });
process.env.TEMPORAL_ADDRESS = server.address;
const pg = await startPostgres();
process.env.RELAYFLOW_WORKFLOW_BUNDLE = await buildWorkflowBundle(fileURLToPath(new URL('../.relayflow/bench/workflow-bundle.js', import.meta.url)));
const env = { RELAYFLOW_DATABASE_URL: pg.url, RELAYFLOW_CODEC_KEYS: generateCodecKey('bench'), RELAYFLOW_TASK_QUEUE: `bench-campaign-${process.pid}` };
const sandbox = await startChild(['sandbox/main.ts'], { SANDBOX_PORT: '0', RELAYFLOW_LOG_LEVEL: 'warn' }, /sandbox listening on (\S+)/);
const h = await startHarness({ env, withoutSendWorker: true, sandboxUrl: sandbox.match[1]! });
// The project's budget above the app's limit: the app's limit is the one measured.
await sandboxJson(h, 'PUT', '/_sandbox/conversation/limits', { projectRps: Math.max(800, rate * 2) });
const { child: sendWorker } = await startChild(['test/helpers/send-worker-process.ts'], {
  ...env, TEMPORAL_ADDRESS: server.address, RELAYFLOW_API_KEYS: TEST_API_KEY, PLATFORM_SANDBOX_URL: h.sandbox.url, TEST_PUBLIC_URL: h.apiUrl,
}, /ready/);
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

try {
  // Baseline: the platform client alone, paced at the limit with the same headroom-free schedule.
  const baseApp = await createApp(h, rate);
  const clients = createPlatformClients(h.config.platform, { logger: createLogger({ name: 'bench', level: 'silent' }) });
  log(`baseline: ${baselineCount} messages by a bare paced loop at ${rate}/s`);
  const baseSpan = acceptedSpan(baseApp, baselineCount, 600_000);
  const base = await pacedLoop(baselineCount, rate, (i) => clients.conversation.sendMessage('eu', { appId: baseApp, channel: 'SMS', identity: `+4671${String(i).padStart(7, '0')}`, text: 'bench' }));
  const baseRate = (baselineCount - 1) / (await baseSpan).seconds;

  const appId = await createApp(h, rate);
  log(`relayflow: a campaign of ${recipients} recipients, app limit ${rate}/s`);
  const startedAt = performance.now();
  const res = await h.api({ method: 'POST', url: '/v1/campaigns/conversation', payload: { appId, region: 'eu', message: { text: 'bench' }, recipients: numbers(recipients) } });
  if (res.statusCode !== 202) throw new Error(`campaign start: ${res.statusCode} ${res.body}`);
  const { processId } = res.json() as { processId: string };
  const span = await acceptedSpan(appId, recipients, Math.max(600_000, (recipients / rate) * 4_000));
  const totalSeconds = (performance.now() - startedAt) / 1000;
  const done = await waitForCompleted(processId);
  const stats = await conversationStats(h, appId);
  const sent = done.counts.sent;
  const actions = await countActions(h.client, processId, h.config.processes.campaigns.heartbeatTimeoutMs);
  sendWorker.kill('SIGTERM');
  const workerPeakRss = await peakRssOf(sendWorker);

  const achieved = (recipients - 1) / span.seconds;
  const ratio = achieved / rate;
  const refusedShare = stats.refused429 / Math.max(1, stats.requests);
  const per1000 = (n: number) => (n * 1000) / recipients;
  log('');
  log(`achieved ${achieved.toFixed(1)}/s over ${span.seconds.toFixed(1)} s (first to last acceptance; ${totalSeconds.toFixed(1)} s from the API call)`);
  log(`rate ratio relayflow/limit: ${ratio.toFixed(3)} (target >= 0.95: ${ratio >= 0.95 ? 'met' : 'NOT met'})`);
  log(`rate ratio relayflow/bare paced loop: ${(achieved / baseRate).toFixed(3)} (the loop: ${baseRate.toFixed(1)}/s, ${(baseRate / rate).toFixed(3)} of the limit, ${((base.refused / baselineCount) * 100).toFixed(2)}% refused with 429)`);
  log(`429 share: ${(refusedShare * 100).toFixed(2)}% of ${stats.requests} calls (target < 1%: ${refusedShare < 0.01 ? 'met' : 'NOT met'})`);
  log(`Temporal actions per 1,000 messages: ${per1000(actions.total).toFixed(1)} from the history (${describe(actions)}), ` +
    `+ at most ${per1000(actions.heartbeatsAtMost).toFixed(1)} heartbeats (not in the history): ${per1000(actions.total + actions.heartbeatsAtMost).toFixed(1)} ` +
    `(target <= 50: ${per1000(actions.total + actions.heartbeatsAtMost) <= 50 ? 'met' : 'NOT met'}); ${actions.runs} runs, ${per1000(actions.events).toFixed(1)} history events per 1,000`);
  const chunks = actions.activities.sendChunk ?? { count: 0, seconds: 0, queuedSeconds: 0 };
  const perChunk = (n: number) => (n / Math.max(1, chunks.count)).toFixed(2);
  log(`chunks: ${chunks.count}, ${perChunk(chunks.seconds)} s each (last attempt) after ${perChunk(chunks.queuedSeconds)} s queued, ${(chunks.seconds / span.seconds).toFixed(2)} running at once on average`);
  const duplicates = stats.duplicateRecipients;
  const lost = recipients - stats.distinctRecipients;
  log(`duplicates ${duplicates}, lost ${lost} (sandbox accepted ${stats.accepted}, store says sent ${sent}) (target 0: ${duplicates === 0 && lost === 0 && sent === recipients ? 'met' : 'NOT met'})`);
  log(`peak memory: send worker process ${(workerPeakRss / 1024 / 1024).toFixed(0)} MiB RSS; this process (API, workflow worker) ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB RSS`);
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
  return Object.entries(a.byKind).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ');
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

/** Starts `node --import tsx <args>` and waits for `ready` on its standard output. */
function startChild(args: string[], childEnv: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...childEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const match = ready.exec(out);
      if (match) resolve({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited early (${code})`)));
  });
}

/** The worker prints "maxrss <bytes>" as it exits. */
function peakRssOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', () => resolve(Number(/maxrss (\d+)/.exec(out)?.[1] ?? NaN)));
  });
}
