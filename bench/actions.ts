// Temporal actions benchmark: what one verification, one incoming call, one callout and one customer onboarding
// cost in Temporal actions (as Temporal Cloud bills them: run starts, activity attempts, timers, signals, updates,
// search attribute upserts, markers, child starts), counted from the histories (bench/action-counts.ts) of every
// workflow each made: the process, and what it started (a verification's per-number guard, an onboarding's child
// processes and their resources' inboxes). Each scenario runs alone through the API against the sandbox, in turn,
// once per round. Heartbeats are billed too but are not in histories; none of these processes' activities heartbeat.
// The targets are ceilings set just above the counts measured when the benchmark was written: an alarm for a
// change that adds actions, not a goal. (Campaign actions per 1,000 messages: bench/campaign.ts.)
//   RELAYFLOW_BENCH_PROFILE=short|full npx tsx bench/actions.ts
import type { Client } from '@temporalio/client';
import { countActions, type ActionCounts } from './action-counts.js';
import { benchProfile, exitWhenDone, log, shutdown, sleep, startStack } from './bench-stack.js';
import { emitBenchResult, type BenchRow } from './result.js';
import { benchApi, processScenarios, wireScenarios } from './scenarios.js';

const profile = benchProfile();
const ROUNDS = profile === 'short' ? 1 : 3;

/** Ceilings: today's counts (see the commit that set them) plus a little room for timing (a check more or less). */
const CEILINGS: Record<string, number> = {
  verification: 23, // 17 and 18 measured; 21 and 22 with the pumping guard's two signals (start, correct code)
  'incoming call': 10, // 8 and 9
  callout: 9, // 8
  onboarding: 155, // 142 to 147
};

const { server, h } = await startStack();

/** Every workflow ID the server has seen so far. */
async function workflowIdsNow(client: Client): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for await (const w of client.workflow.list()) ids.set(w.workflowId, w.type);
  return ids;
}

const api = benchApi(h);
/** Each scenario runs one process to its end (bench/scenarios.ts); it returns the process's ID and what it ended as. */
const all = processScenarios(h, api, '+4673');
const SCENARIOS = { verification: all.verification, 'incoming call': all['incoming call'], callout: all.callout, onboarding: all.onboarding };

/**
 * Workflows a process adds actions to without starting them: a destination prefix's pumping guard, signalled by
 * every verification to that prefix. What a scenario added to those counts too (only the first starts one).
 */
const SHARED_TYPES = new Set(['verificationPumpingGuard']);
async function sharedActions(ids: Map<string, string>): Promise<Map<string, { type: string; counts: ActionCounts }>> {
  const shared = [...ids].filter(([, type]) => SHARED_TYPES.has(type));
  const counts = await Promise.all(shared.map(([id]) => countActions(h.client, id, 60_000)));
  return new Map(shared.map(([id, type], i) => [id, { type, counts: counts[i]! }]));
}
/** What a shared workflow's counts grew by. */
function grown(after: ActionCounts, before: ActionCounts): ActionCounts {
  const byKind = Object.fromEntries(Object.entries(after.byKind).map(([k, n]) => [k, n - (before.byKind[k] ?? 0)]));
  return { ...after, total: after.total - before.total, byKind, events: after.events - before.events };
}

const totals: Record<string, number[]> = Object.fromEntries(Object.keys(SCENARIOS).map((s) => [s, []]));
const notes: string[] = [];
const sum = (cs: ActionCounts[], f: (c: ActionCounts) => number) => cs.reduce((a, c) => a + f(c), 0);
try {
  log('wiring the sandbox: voice callbacks and numbers, a connect rule, sender ID callbacks, fast reviewers');
  await wireScenarios(h, api);

  // A prefix's pumping guard is started by the first verification to it and shared by all the others: one
  // verification before the rounds starts it, so each round counts what a verification adds to it.
  await SCENARIOS.verification();
  log(`${profile} profile: ${ROUNDS} round(s) of ${Object.keys(SCENARIOS).join(', ')}, one at a time`);
  for (let round = 0; round < ROUNDS; round++) {
    log(`round ${round + 1} of ${ROUNDS}`);
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      const before = await workflowIdsNow(h.client);
      const sharedBefore = await sharedActions(before);
      const t0 = Date.now();
      const { processId } = await scenario();
      await sleep(1_000); // the last closes reach visibility
      const made: [string, string][] = [...(await workflowIdsNow(h.client))].filter(([id]) => !before.has(id));
      const counts = await Promise.all(made.map(([id]) => countActions(h.client, id, 60_000)));
      for (const [id, then] of sharedBefore) {
        const more = grown(await countActions(h.client, id, 60_000), then.counts);
        if (more.total > 0) {
          made.push([id, `${then.type} (shared)`]);
          counts.push(more);
        }
      }
      const total = sum(counts, (c) => c.total);
      // Each workflow's events in order, to see where a process's writes go.
      if (process.env.RELAYFLOW_BENCH_EVENTS === '1')
        made.forEach(([id, type], i) => log(`    ${type} ${id}: ${counts[i]!.eventTypes.join(' ')}`));
      totals[name]!.push(total);
      const byKind: Record<string, number> = {};
      for (const c of counts) for (const [k, n] of Object.entries(c.byKind)) if (n) byKind[k] = (byKind[k] ?? 0) + n;
      const byType: Record<string, number> = {};
      made.forEach(([, type], i) => (byType[type] = (byType[type] ?? 0) + counts[i]!.total));
      const kinds = Object.entries(byKind)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      const types = Object.entries(byType)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ');
      log(
        `  ${name.padEnd(13)} ${String(total).padStart(4)} actions in ${made.length} workflow(s), ${((Date.now() - t0) / 1000).toFixed(1)} s: ${kinds}; by workflow: ${types}`,
      );
      if (round === ROUNDS - 1)
        notes.push(
          `${name} (${processId.split(':')[0]}): ${total} actions in ${made.length} workflow(s), ${sum(counts, (c) => c.events)} history events; ${kinds}; by workflow type: ${types}`,
        );
    }
  }
  notes.unshift(
    `${profile} profile: ${ROUNDS} round(s); each scenario alone, through the API against the sandbox; actions counted from the histories of every workflow the scenario started (the process, a verification's number guard, an onboarding's children and inboxes), once the process had closed, and what it added to a shared one it did not start (a prefix's pumping guard)`,
    "verification: SMS, code reported, closed by the platform's result callback; incoming call: ICE to a connect rule, ACE, hang-up (DiCE); callout: text-to-speech, answered; onboarding: subproject, bundle, webhook, RCS and CHATB senders, a template and a sender ID registration, reviewers deciding after 200 ms (the template keeps watching after the onboarding completes: counted up to then)",
    'targets are ceilings set just above the counts measured when this benchmark was written, so an added action fails the alarm: not goals; heartbeats are not in histories (none of these activities heartbeats)',
  );
} finally {
  await shutdown([
    ['worker, API and sandbox', () => h.close()],
    [`Temporal server (${server.target})`, () => server.stop()],
  ]);
}

emitBenchResult({
  bench: 'actions',
  target: server.target,
  rounds: ROUNDS,
  rows: Object.entries(totals).map(([name, values]): BenchRow => ({
    figure: `Temporal actions per ${name}`,
    unit: 'actions',
    baseline: 'none (a ceiling)',
    relayflow: values,
    baselineValues: [],
    ratios: [],
    ...(CEILINGS[name] ? { target: { of: 'value', op: '<=', bound: CEILINGS[name]! } } : {}),
  })),
  notes,
});
exitWhenDone();
