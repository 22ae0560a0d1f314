// Webhook intake benchmark: provisioning webhooks (comment events of templates and senders, signed as the platform
// signs them) posted at relayflow's intake, `POST /callbacks/provisioning`, each for a resource whose process is
// waiting for its review: the intake checks the signature and the body, then takes the event to the process that
// claimed the resource (however it finds it: the figures count every workflow but the baseline's). Beside it in the same run, on the same server and client, the
// baseline: `signalWithStart` called directly from a Temporal client to a bare waiting workflow per resource
// (bench/baseline-signal-workflow.ts). Rounds alternate which side goes first.
// Rows: webhooks taken in per second (ratio to the baseline, target >= 0.8), answer p99 (target <= 250 ms).
//   RELAYFLOW_BENCH_PROFILE=short|full npx tsx bench/webhook-intake.ts
import { setMaxListeners } from 'node:events';
import { ulid } from 'ulid';
import { nodeTransport } from '../common/http-transport.js';
import { CONVERSATION_WEBHOOK_HEADERS, conversationWebhookSignature } from '../common/signing.js';
import { PROVISIONING_WEBHOOK_PATH } from '../contracts/callbacks.js';
import { workflowIds } from '../processes/kinds.js';
import { inboxQuery } from '../processes/provisioning/contract.js';
import type { Client } from '@temporalio/client';
import { benchProfile, exitWhenDone, log, shutdown, sleep, startBaselineWorker, startStack } from './bench-stack.js';
import { baselineEventSignal, baselineStopSignal } from './baseline-signal-workflow.js';
import { emitBenchResult, type BenchRow } from './result.js';
import { percentile, pool } from './stats.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { countTasks } from './task-counts.js';
import { PROVISIONING_KINDS, waitingHarness } from './waiting-processes.js';

const profile = benchProfile();
const P =
  profile === 'short'
    ? { processes: 15, webhooks: 400, warmup: 40, rounds: 3, concurrency: 20 }
    : { processes: 90, webhooks: 1000, warmup: 100, rounds: 3, concurrency: 20 };
// The reviewers never decide during the run, and the processes neither poll nor go overdue: each waits on its webhooks.
// The store (where the resource-to-process links are read) on PostgreSQL, as a deployment keeps it: PGlite runs in
// this process and would put its CPU on relayflow's event loop.
const pg = await startPostgres();
const stack = await startStack({ ...waitingHarness, env: { ...waitingHarness.env, RELAYFLOW_DATABASE_URL: pg.url } });
const { server, h } = stack;
const never = new AbortController().signal;
setMaxListeners(0, never); // one abort listener per request in flight

/** A waiting process and the resource its webhooks name. */
interface Target {
  processId: string;
  channel: string;
  resourceType: 'TEMPLATE' | 'SENDER';
  resourceId: string;
  trigger: string;
  sent: string[];
}

/** Starts `n` processes through the API (a mix of the kinds) and waits until each has made its resource. */
async function startWaitingProcesses(n: number): Promise<Target[]> {
  const targets: Target[] = [];
  await pool(n, 10, async (i) => {
    const kind = PROVISIONING_KINDS[i % PROVISIONING_KINDS.length]!;
    const resource = kind.resource!;
    const res = await h.api({ method: 'POST', url: kind.route, payload: kind.body() });
    if (res.statusCode !== 202) throw new Error(`${kind.route}: ${res.statusCode} ${res.body}`);
    const processId = res.json<{ processId: string }>().processId;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`${processId} made no ${resource.resourceType.toLowerCase()} within 60 s`);
      const view = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}` });
      const resourceId =
        view.statusCode === 200 ? (view.json<{ details: Record<string, unknown> }>().details[resource.idField] as string | undefined) : undefined;
      if (resourceId) {
        targets.push({ processId, channel: resource.channel, resourceType: resource.resourceType, resourceId, trigger: resource.commentTrigger, sent: [] });
        return;
      }
      await sleep(200);
    }
  });
  return targets;
}

/** Every workflow on the server but the baseline's: whatever relayflow's webhooks touch. */
async function relayflowWorkflows(client: Client): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of client.workflow.list({ query: "WorkflowType != 'baselineWaiter'" })) ids.push(w.workflowId);
  return [...new Set(ids)];
}

const secret = h.config.api.provisioningWebhookSecret!;
const intakeUrl = new URL(`${h.apiUrl}${PROVISIONING_WEBHOOK_PATH}`);
let sequence = 1_000_000;

interface Run {
  answerMs: number[];
  seconds: number;
  errors: string[];
}

/** `n` signed comment events, `concurrency` at a time, spread over the waiting processes. */
async function relayflowRun(targets: Target[], n: number): Promise<Run> {
  const r: Run = { answerMs: [], seconds: 0, errors: [] };
  const t0 = performance.now();
  await pool(n, P.concurrency, async (i) => {
    const t = targets[i % targets.length]!;
    const eventId = `bench-${ulid()}`;
    const body = JSON.stringify({
      eventId,
      projectId: h.config.platform.credentials.projectId,
      trigger: t.trigger,
      channel: t.channel,
      resourceType: t.resourceType,
      resourceId: t.resourceId,
      sequence: ++sequence,
      eventTime: new Date().toISOString(),
      comment: `bench comment ${eventId}`,
      details: {},
    });
    const nonce = ulid();
    const timestamp = String(Math.floor(Date.now() / 1000));
    const hd = CONVERSATION_WEBHOOK_HEADERS;
    const started = performance.now();
    const res = await nodeTransport(intakeUrl, {
      method: 'POST',
      body,
      signal: never,
      headers: {
        'content-type': 'application/json',
        [hd.signature]: conversationWebhookSignature(secret, body, nonce, timestamp),
        [hd.nonce]: nonce,
        [hd.timestamp]: timestamp,
        [hd.algorithm]: 'HmacSHA256',
      },
    }).catch((err: Error) => ({ status: 0, text: err.message }));
    r.answerMs.push(performance.now() - started);
    if (res.status === 200) t.sent.push(eventId);
    else r.errors.push(`${res.status} ${res.text.slice(0, 200)}`);
  });
  r.seconds = (performance.now() - t0) / 1000;
  return r;
}

// The baseline's worker and its bare waiting workflows (one per resource, as relayflow has one inbox per resource).
const baseline = await startBaselineWorker(stack, new URL('./baseline-signal-workflow.ts', import.meta.url));
const baselineIds = Array.from({ length: P.processes }, () => `bench-baseline-signal:${ulid()}`);
const baselineSent = new Map<string, number>();

async function baselineRun(n: number): Promise<Run> {
  const r: Run = { answerMs: [], seconds: 0, errors: [] };
  const t0 = performance.now();
  await pool(n, P.concurrency, async (i) => {
    const workflowId = baselineIds[i % baselineIds.length]!;
    const eventId = `bench-${ulid()}`;
    const started = performance.now();
    try {
      await h.client.workflow.signalWithStart('baselineWaiter', {
        workflowId,
        taskQueue: baseline.taskQueue,
        args: [],
        signal: baselineEventSignal,
        signalArgs: [{ eventId, trigger: 'CHATA_TEMPLATE_COMMENT_ADDED', comment: `bench comment ${eventId}` }],
      });
      baselineSent.set(workflowId, (baselineSent.get(workflowId) ?? 0) + 1);
    } catch (err) {
      r.errors.push((err as Error).message.slice(0, 200));
    }
    r.answerMs.push(performance.now() - started);
  });
  r.seconds = (performance.now() - t0) / 1000;
  return r;
}

/**
 * Waits until every accepted webhook is in its process (or `ms` passed), reading each process through the API: what
 * is still missing then, and the duplicates the processes dropped. Also run after each relayflow run, so the inboxes'
 * forwarding of its backlog is not charged to the baseline measured next (it was: a baseline measured right after
 * relayflow ran at 133/s, one measured first at 310/s).
 */
async function untilDelivered(targets: Target[], ms: number): Promise<{ lost: number; duplicates: number }> {
  let lost = 0;
  let duplicates = 0;
  await pool(targets.length, 10, async (i) => {
    const t = targets[i]!;
    const deadline = Date.now() + ms;
    for (;;) {
      const res = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(t.processId)}` });
      const view = res.json<{ details: { events?: { eventId: string }[]; duplicateEvents: number } }>();
      // A process too busy to answer its query in time is shown from its search attributes, without details: read again.
      if (res.statusCode !== 200 || !view.details?.events) {
        if (Date.now() > deadline) throw new Error(`${t.processId} could not be read: ${res.statusCode} ${res.body.slice(0, 300)}`);
        await sleep(500);
        continue;
      }
      const seen = new Set(view.details.events.map((e) => e.eventId));
      const missing = t.sent.filter((id) => !seen.has(id)).length;
      if (missing === 0 || Date.now() > deadline) {
        lost += missing;
        duplicates += view.details.duplicateEvents;
        return;
      }
      await sleep(250);
    }
  });
  return { lost, duplicates };
}

const notes: string[] = [];
const rows = {
  rate: { rf: [] as number[], base: [] as number[] },
  p99: { rf: [] as number[], base: [] as number[] },
};
try {
  log(
    `${profile} profile: ${P.processes} waiting processes (CHATA and CHATB templates, RCS, CHATA and CHATB senders), ${P.rounds} round(s) of ${P.webhooks} webhooks each side, ${P.concurrency} at a time`,
  );
  const targets = await startWaitingProcesses(P.processes);
  // A first webhook each, taken in by its process: every resource is claimed before anything is measured.
  const first = await relayflowRun(targets, targets.length);
  if (first.errors.length) throw new Error(`first webhooks refused: ${first.errors[0]}`);
  const unclaimed = await untilDelivered(targets, 60_000);
  if (unclaimed.lost) throw new Error(`${unclaimed.lost} first webhooks did not reach their process within 60 s`);
  log(`${targets.length} processes waiting, each reached by a first webhook for its resource`);
  // The baseline's workflows wait before the run, as relayflow's inboxes and processes do.
  await pool(baselineIds.length, 10, async (i) => {
    await h.client.workflow.start('baselineWaiter', { workflowId: baselineIds[i]!, taskQueue: baseline.taskQueue, args: [] });
  });
  // What each side makes the server and worker do: workflow tasks and history events, counted before and after.
  const sentBefore = targets.reduce((s, t) => s + t.sent.length, 0);
  const tasksBefore = { relayflow: await countTasks(h.client, await relayflowWorkflows(h.client)), baseline: await countTasks(h.client, baselineIds) };
  log(`warm-up: ${P.warmup} each side`);
  const warm = [await baselineRun(P.warmup), await relayflowRun(targets, P.warmup)];
  await untilDelivered(targets, 30_000);
  for (const w of warm) if (w.errors.length) throw new Error(`warm-up refused: ${w.errors[0]}`);
  const errors = { relayflow: [] as string[], baseline: [] as string[] };
  const measure = async (side: 'relayflow' | 'baseline') => {
    await sleep(1_000); // the server finishes the previous run's work first
    const run = side === 'relayflow' ? await relayflowRun(targets, P.webhooks) : await baselineRun(P.webhooks);
    if (side === 'relayflow') await untilDelivered(targets, 30_000);
    const sorted = [...run.answerMs].sort((a, b) => a - b);
    const rate = (run.answerMs.length - run.errors.length) / run.seconds;
    const p99 = percentile(sorted, 99);
    log(
      `  ${side.padEnd(9)} ${rate.toFixed(1).padStart(7)} /s   answer p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${p99.toFixed(1)} ms   errors ${run.errors.length}`,
    );
    errors[side].push(...run.errors);
    (side === 'relayflow' ? rows.rate.rf : rows.rate.base).push(rate);
    (side === 'relayflow' ? rows.p99.rf : rows.p99.base).push(p99);
  };
  for (let round = 0; round < P.rounds; round++) {
    log(`round ${round + 1} of ${P.rounds}`);
    const order: Array<'relayflow' | 'baseline'> = round % 2 === 0 ? ['baseline', 'relayflow'] : ['relayflow', 'baseline'];
    for (const side of order) await measure(side);
    log(`  ratio relayflow/baseline ${(rows.rate.rf[round]! / rows.rate.base[round]!).toFixed(2)}`);
  }

  // Every accepted webhook reached its process, once: the inboxes' and processes' own counts.
  log('checking that every accepted event reached its process once');
  const { lost, duplicates } = await untilDelivered(targets, 30_000);
  let inboxDuplicates = 0;
  const sent = targets.reduce((s, t) => s + t.sent.length, 0);
  await pool(targets.length, 10, async (i) => {
    const t = targets[i]!;
    // A resource's inbox, where there is one (it takes events only while no process has claimed the resource).
    const inbox = await h.client.workflow
      .getHandle(workflowIds.resourceInbox(t.channel, t.resourceType, t.resourceId))
      .query(inboxQuery)
      .catch(() => undefined);
    inboxDuplicates += inbox?.duplicates ?? 0;
  });
  let baselineLost = 0;
  await pool(baselineIds.length, 10, async (i) => {
    const handle = h.client.workflow.getHandle(baselineIds[i]!);
    await handle.signal(baselineStopSignal);
    baselineLost += (baselineSent.get(baselineIds[i]!) ?? 0) - ((await handle.result()) as number);
  });
  const tasksAfter = { relayflow: await countTasks(h.client, await relayflowWorkflows(h.client)), baseline: await countTasks(h.client, baselineIds) };
  const perWebhook = (side: 'relayflow' | 'baseline', n: number) => {
    const d = (k: 'tasks' | 'redoneTasks' | 'events') => (tasksAfter[side][k] - tasksBefore[side][k]) / n;
    return `${d('tasks').toFixed(2)} workflow tasks (+${d('redoneTasks').toFixed(2)} redone), ${d('events').toFixed(1)} history events`;
  };
  const rfTasks = perWebhook('relayflow', sent - sentBefore);
  const baseTasks = perWebhook(
    'baseline',
    [...baselineSent.values()].reduce((a, b) => a + b, 0),
  );
  log(`per webhook: relayflow ${rfTasks} (every workflow but the baseline's); baseline ${baseTasks}`);
  const refused = errors.relayflow.length;
  log(
    `relayflow: ${sent} webhooks accepted, ${refused} refused, ${lost} not seen by their process, ${duplicates} duplicates at the processes, ${inboxDuplicates} at the inboxes; baseline: ${errors.baseline.length} refused, ${baselineLost} not seen`,
  );
  if (refused) log(`  first refusal: ${errors.relayflow[0]}`);
  notes.push(
    `${profile} profile: ${P.processes} waiting processes (CHATA/CHATB templates, RCS/CHATA/CHATB senders in turn; with their inboxes within the worker's default cache of 200 workflows), ${P.webhooks} comment webhooks per side per round, ${P.concurrency} at a time, after a warm-up of ${P.warmup}; each webhook signed as the platform signs (HMAC-SHA256 over body, nonce and timestamp) and posted over HTTP`,
    `relayflow path: signature + schema check, then to the process that claimed the resource (each process reached by a first webhook before the warm-up; that work shares the machine); baseline: signalWithStart from the same Temporal client to a bare waiting workflow per resource, no HTTP`,
    `per webhook: relayflow ${rfTasks} (every workflow but the baseline's), baseline ${baseTasks}; the budget's count per webhook, measured one at a time: bench/actions.ts`,
    `every accepted webhook checked at its process: ${lost} lost, ${duplicates} duplicates at the processes, ${inboxDuplicates} at the inboxes; ${refused} refused by relayflow, ${errors.baseline.length} baseline errors, ${baselineLost} baseline signals not seen`,
  );
} finally {
  await shutdown([
    ['baseline worker', () => baseline.stop()],
    ['relayflow worker, API and sandbox', () => h.close()],
    [`Temporal server (${server.target})`, () => server.stop()],
    ['PostgreSQL', () => pg.stop()],
  ]);
}

// Ratios are higher-is-better (bench/result.ts): a time's ratio is the baseline's over relayflow's.
const row = (
  figure: string,
  unit: string,
  baseline: string,
  v: { rf: number[]; base: number[] },
  target: BenchRow['target'],
  lowerIsBetter = false,
): BenchRow => ({
  figure,
  unit,
  baseline,
  relayflow: v.rf,
  baselineValues: v.base,
  ratios: v.rf.map((x, i) => (lowerIsBetter ? v.base[i]! / x : x / v.base[i]!)),
  target,
});
emitBenchResult({
  bench: 'webhook-intake',
  target: server.target,
  rounds: P.rounds,
  rows: [
    row('provisioning webhooks taken in', '/s', 'signalWithStart from a Temporal client to a bare waiting workflow', rows.rate, {
      of: 'ratio',
      op: '>=',
      bound: 0.8,
    }),
    row('webhook answer p99', 'ms', 'signalWithStart call p99', rows.p99, { of: 'value', op: '<=', bound: 250 }, true),
  ],
  notes,
});
exitWhenDone();
