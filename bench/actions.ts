// What each process writes to Temporal: actions (as Temporal Cloud bills them: run starts, activity attempts,
// timers, signals, updates, search attribute upserts, markers, child starts) and history events (each a durable
// write), per verification, incoming call, callout, provisioning webhook and onboarding, against the budgets of
// bench/budgets.ts (the CI alarm fails on any count over its budget). Counted from the histories (bench/action-
// counts.ts) of every workflow the scenario touched: every run it started, whole, and every run already there
// that wrote events meanwhile (a guard shared by verifications, the process that owns a webhook's resource),
// from where it stood before; so it holds whatever workflows the processes are made of. Each scenario runs
// alone through the API against the sandbox, after the server has gone quiet, once per round. Heartbeats are
// billed too but are not in histories; none of these processes' activities heartbeat. (Campaign actions per
// 1,000 messages: bench/campaign.ts.)
//   RELAYFLOW_BENCH_PROFILE=short|full npx tsx bench/actions.ts
//   RELAYFLOW_BENCH_EVENTS=1 also prints each workflow's events, in order, as counted
import { addCounts, countRunActions, eventsByType, type ActionCounts } from './action-counts.js';
import { benchProfile, exitWhenDone, log, shutdown, sleep, startStack } from './bench-stack.js';
import { budgetFigure, budgetTarget, BUDGETS, type Counted } from './budgets.js';
import { emitBenchResult, type BenchRow } from './result.js';
import { benchApi, commentWebhooks, processScenarios, unclaimedWebhooks, waitingTemplate, wireScenarios } from './scenarios.js';

const profile = benchProfile();
const ROUNDS = profile === 'short' ? 1 : 3;
/** Webhooks per measurement: each figure is per webhook. */
const WEBHOOKS = 5;
const UNCLAIMED = 3;
const UNCLAIMED_WEBHOOK = 'provisioning webhook for an unclaimed resource';

const { server, h } = await startStack();
const api = benchApi(h);
const scenarios = processScenarios(h, api, '+4673');

interface Run {
  workflowId: string;
  runId: string;
  type: string;
  running: boolean;
  /** Its history's length when listed (live, from describe, for a running one). */
  length: number;
}

/** Every run the server holds. */
async function runsNow(): Promise<Map<string, Run>> {
  const runs = new Map<string, Run>();
  for await (const w of h.client.workflow.list()) {
    const running = w.status.name === 'RUNNING';
    const length = running ? (await h.client.workflow.getHandle(w.workflowId, w.runId).describe()).historyLength : w.historyLength;
    runs.set(w.runId, { workflowId: w.workflowId, runId: w.runId, type: w.type, running, length });
  }
  return runs;
}

/** Waits until no run starts and no running one writes for a second (at most 20 s): the scenario's work is done. */
async function settled(): Promise<void> {
  const deadline = Date.now() + 20_000;
  const look = async () => {
    const parts: string[] = [String((await h.client.workflow.count()).count)];
    for await (const w of h.client.workflow.list({ query: "ExecutionStatus = 'Running'" }))
      parts.push(`${w.runId}:${(await h.client.workflow.getHandle(w.workflowId, w.runId).describe()).historyLength}`);
    return parts.sort().join(' ');
  };
  let last = await look();
  let quiet = 0;
  while (quiet < 2 && Date.now() < deadline) {
    await sleep(500);
    const now = await look();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

interface Touched {
  run: Run;
  started: boolean;
  counts: ActionCounts;
}

/** What every run wrote since `before`: a run started since, whole; a run running then, from where it stood. */
async function touchedSince(before: Map<string, Run>): Promise<Touched[]> {
  const touched: Touched[] = [];
  for (const run of (await runsNow()).values()) {
    const was = before.get(run.runId);
    if (was && !was.running) continue; // closed before: it cannot have grown
    const counts = await countRunActions(h.client, run.workflowId, run.runId, was?.length ?? 0);
    if (counts.events > 0) touched.push({ run, started: !was, counts });
  }
  return touched;
}

const figures: Record<string, Record<Counted, number[]>> = {};
const notes: string[] = [];
const round2 = (n: number) => Math.round(n * 100) / 100;
const list = (by: Record<string, number>, per: number) =>
  Object.entries(by)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${round2(n / per)}`)
    .join(', ');

/** Runs the scenario between two quiet points and records what every touched workflow wrote, per `per` units. */
async function measure(name: string, scenario: () => Promise<unknown>, last: boolean, per = 1): Promise<void> {
  await settled();
  const before = await runsNow();
  const t0 = Date.now();
  await scenario();
  await settled();
  const touched = await touchedSince(before);
  const sum = addCounts(touched.map((t) => t.counts));
  const f = (figures[name] ??= { actions: [], events: [] });
  f.actions.push(round2(sum.total / per));
  f.events.push(round2(sum.events / per));
  if (process.env.RELAYFLOW_BENCH_EVENTS === '1')
    for (const t of touched) log(`    ${t.run.type}${t.started ? '' : ' (already running)'} ${t.run.workflowId}: ${t.counts.eventTypes.join(' ')}`);
  const byType: Record<string, { actions: number; events: number }> = {};
  for (const t of touched) {
    const key = `${t.run.type}${t.started ? '' : ' (already running)'}`;
    const b = (byType[key] ??= { actions: 0, events: 0 });
    b.actions += t.counts.total;
    b.events += t.counts.events;
  }
  const workflows = Object.entries(byType)
    .map(([type, b]) => `${type} ${round2(b.actions / per)} / ${round2(b.events / per)}`)
    .join(', ');
  const unit = per === 1 ? '' : ` per ${name.startsWith('provisioning webhook') ? 'webhook' : 'unit'} (${per} sent)`;
  const summary = `${round2(sum.total / per)} actions, ${round2(sum.events / per)} history events${unit} in ${touched.length} workflow(s)`;
  log(`  ${name}: ${summary}, ${((Date.now() - t0) / 1000).toFixed(1)} s; actions: ${list(sum.byKind, per)}; by workflow (actions / events): ${workflows}`);
  if (last)
    notes.push(
      `${name}: ${summary}; actions by kind: ${list(sum.byKind, per)}; events by type: ${list(eventsByType(sum.eventTypes), per)}; by workflow type (actions / events): ${workflows}`,
    );
}

try {
  log('wiring the sandbox: voice callbacks and numbers, a connect rule, sender ID callbacks, fast reviewers');
  await wireScenarios(h, api);
  // Whatever verifications share (a destination prefix's counters) exists from the first one on: one before the
  // rounds, so each round counts what one more verification adds.
  await scenarios.verification();
  log(`${profile} profile: ${ROUNDS} round(s), each scenario alone once the server is quiet`);
  for (let round = 0; round < ROUNDS; round++) {
    const last = round === ROUNDS - 1;
    log(`round ${round + 1} of ${ROUNDS}`);
    await measure('verification', scenarios.verification, last);
    await measure('incoming call', scenarios['incoming call'], last);
    await measure('callout', scenarios.callout, last);
    // Its process started (and reached by a first webhook) outside the measurement: only the webhooks count.
    const target = await waitingTemplate(h, api);
    await measure('provisioning webhook', () => commentWebhooks(h, api, target, WEBHOOKS), last, WEBHOOKS);
    await measure(UNCLAIMED_WEBHOOK, () => unclaimedWebhooks(h, UNCLAIMED), last, UNCLAIMED);
    await measure('onboarding', scenarios.onboarding, last);
  }
  notes.unshift(
    `${profile} profile: ${ROUNDS} round(s); each scenario alone, through the API against the sandbox, once the server was quiet (no run started or wrote for a second); counted from the histories of every run the scenario started (whole) and every run already running that wrote meanwhile (from where it stood), until the server was quiet again`,
    "verification: SMS, code reported, closed by the platform's result callback; incoming call: ICE to a connect rule, ACE, hang-up (DiCE); callout: text-to-speech, answered; " +
      `provisioning webhook: ${WEBHOOKS} comment webhooks, one at a time, for the template of a CHATA template approval waiting for its review (started, and reached by a first webhook, before the measurement), per webhook; ` +
      `${UNCLAIMED_WEBHOOK}: ${UNCLAIMED} comment webhooks for templates no process claimed, per webhook; ` +
      'onboarding: subproject, bundle, webhook, RCS and CHATB senders, a template and a sender ID registration, reviewers deciding after 200 ms (the template keeps watching after the onboarding completes: counted until the server is quiet)',
    'targets are the budgets of bench/budgets.ts, which the CI alarm enforces with no slack; heartbeats are not in histories (none of these activities heartbeats)',
  );
} finally {
  await shutdown([
    ['worker, API and sandbox', () => h.close()],
    [`Temporal server (${server.target})`, () => server.stop()],
  ]);
}

const budgeted = new Set(BUDGETS.filter((b) => b.bench === 'actions').map((b) => b.process));
emitBenchResult({
  bench: 'actions',
  target: server.target,
  rounds: ROUNDS,
  rows: Object.entries(figures).flatMap(([name, values]) =>
    (['actions', 'events'] as const).map((counted): BenchRow => {
      const target = budgeted.has(name) ? budgetTarget(name, counted) : undefined;
      return {
        figure: budgetFigure(name, counted),
        unit: counted,
        baseline: target ? 'none (a budget)' : 'none',
        relayflow: values[counted],
        baselineValues: [],
        ratios: [],
        ...(target ? { target } : {}),
      };
    }),
  ),
  notes,
});
exitWhenDone();
