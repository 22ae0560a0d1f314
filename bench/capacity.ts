// Writes docs/capacity.md from measured figures: bench/results/latest-full.json (actions, events, campaign rate,
// memory), bench/results/worker-cpu.json (worker CPU per process, bench/worker-cpu.ts) and the recorded histories
// under test/fixtures/histories/ (event types and sizes). `--check` exits 1 when the page is not what it would write.
//   npx tsx bench/capacity.ts [--check]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root.js';
import { CONFIG_SCHEMA } from '../common/config/schema.js';
import { fieldOf } from '../common/config/validate.js';
import { chunkRowsFor, windowSizeFor } from '../processes/campaigns/workflow/chunks.js';
import {
  costPerMillion,
  firstLimit,
  historyShape,
  loadNeeds,
  median,
  sumShapes,
  unitFromShape,
  type Assumptions,
  type HistoryShape,
  type LoadNeeds,
  type UnitCost,
} from './capacity-model.js';
import type { BenchResult } from './result.js';

const ROOT = new URL('../', import.meta.url).pathname;
const FULL = 'bench/results/latest-full.json';
const CPU = 'bench/results/worker-cpu.json';
const FIXTURES = 'test/fixtures/histories';
const OUT = 'docs/capacity.md';
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

// --- Published figures and assumptions (each says where it comes from) -------------------------------------------
const PRICE = {
  first: 50,
  lowest: 25,
  source:
    'Temporal Cloud pay-as-you-go action pricing, https://docs.temporal.io/cloud/pricing (temporalio/documentation, docs/evaluate/temporal-cloud/pricing.mdx at 003cfc58c8; read 2026-11-26): $50 per million for the first 5 M actions a month, falling by tiers to $25 per million for 100 M to 200 M; above that, by contract',
};
const A: Assumptions = {
  coreUtilisation: 0.7, // assumption: headroom for bursts and for the replays of evicted workflows, not measured
  coresPerWorker: 2, // assumption: a worker the size of the benchmark machine
  writesPerShard: 200, // assumption: see "History shards" below
  retentionDays: Number(/NAMESPACE_RETENTION = '(\d+) days'/.exec(read('scripts/lib/cluster/temporal-server.ts'))![1]),
  pricePerMillion: PRICE.first,
};
const PEAK_FACTOR = 3; // assumption: the busiest second of the day is three times the day's average
const SHARDS_NOW = Number(/numHistoryShards: \{\{ default "(\d+)"/.exec(read('deploy/temporal/docker.yaml'))![1]);
const WORKERS_NOW = 2; // docs/cluster.md: `npm run cluster` and the compose file run two workers
const configDefault = (name: string) => Number(fieldOf(CONFIG_SCHEMA, name).default);
const POLL_MS = configDefault('RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS');
const CHUNK_SIZE = configDefault('RELAYFLOW_CAMPAIGN_CHUNK_SIZE');
/** The guard window, while verifications have a number guard workflow (none once the guards are in the store). */
const GUARD_WINDOW_MS = 'RELAYFLOW_VERIFICATION_GUARD_WINDOW_MS' in CONFIG_SCHEMA.properties ? configDefault('RELAYFLOW_VERIFICATION_GUARD_WINDOW_MS') : 0;
const CHUNK_SECONDS = configDefault('RELAYFLOW_CAMPAIGN_CHUNK_SECONDS');

// --- Recorded histories -----------------------------------------------------------------------------------------
// Encoded as the server stores them (protobuf), with @temporalio/proto's own protobufjs (see test/helpers/replay.ts).
const requireFromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const protojson = requireFromProto('protobufjs/ext/protojson') as { fromJson(type: unknown, json: unknown, opts?: object): unknown };
const eventType = (patchProtobufRoot(requireFromProto('./index.js')) as { lookupType(n: string): { encode(m: unknown): { finish(): Uint8Array } } }).lookupType(
  'temporal.api.history.v1.HistoryEvent',
);

interface FixtureEvent {
  eventType: string;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
}
const fixtures = new Map<string, { shape: HistoryShape; events: FixtureEvent[] }>();
for (const type of readdirSync(join(ROOT, FIXTURES), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort())
  for (const file of readdirSync(join(ROOT, FIXTURES, type)).sort()) {
    const events = (JSON.parse(read(`${FIXTURES}/${type}/${file}`)) as { history: { events: FixtureEvent[] } }).history.events;
    const shape = historyShape(
      events.map((e) => ({
        type: e.eventType.replace(/^EVENT_TYPE_/, ''),
        bytes: eventType.encode(protojson.fromJson(eventType, e, { ignoreUnknownFields: true })).finish().length,
      })),
    );
    fixtures.set(`${type}/${file.replace(/\.json$/, '')}`, { shape, events });
  }
/** The recorded histories of these names that exist: a workflow type gone since (a guard moved to the store) drops out. */
const recorded = (names: string[]) => names.filter((n) => fixtures.has(n));
const GUARDED = fixtures.has('numberGuard/happy') && GUARD_WINDOW_MS > 0;
const shapeOf = (names: string[]) => sumShapes(recorded(names).map((n) => fixtures.get(n)!.shape));

// --- Benchmark results ------------------------------------------------------------------------------------------
const full = JSON.parse(read(FULL)) as { startedAt: string; machine: { git: { commit: string } }; benches: { bench: string; result: BenchResult }[] };
const bench = (name: string) => full.benches.find((b) => b.bench === name)!.result;
const row = (name: string, figure: string) => median(bench(name).rows.find((r) => r.figure === figure)!.relayflow);
/** History events per process: the actions bench's row, or in a table recorded before it had one, its notes. */
const eventsOf = (scenario: string) =>
  bench('actions').rows.some((r) => r.figure === `history events per ${scenario}`)
    ? row('actions', `history events per ${scenario}`)
    : eventsFromNotes(scenario);
/** "verification (verification): 17 actions in 2 workflow(s), 35 history events; ..." from the actions bench's notes. */
const eventsFromNotes = (scenario: string) =>
  Number(
    new RegExp(`^${scenario} \\([^)]+\\): \\d+ actions in \\d+ workflow\\(s\\), (\\d+) history events`).exec(
      bench('actions').notes!.find((n) => n.startsWith(`${scenario} (`))!,
    )![1],
  );
const cpu = JSON.parse(read(CPU)) as {
  measuredAt: string;
  machine: { cpus: string; commit: string };
  idleMsPerSecond: number;
  kinds: Record<string, { processes: number; msPerProcess: number }>;
  templateWatch: { templates: number; polls: number; msPerWake: number; eventsPerWake: number; actionsPerWake: number };
};

// --- Per kind ---------------------------------------------------------------------------------------------------
interface Kind {
  name: string;
  unit: string;
  cost: UnitCost;
  from: string;
}
const ONBOARDING_FIXTURES = [
  'onboarding/happy',
  'subprojectProvisioning/happy',
  'bundleProvisioning/happy',
  'rcsSenderLaunch/happy',
  'chatbSenderApproval/happy',
  'templateApproval/happy',
  'senderIdRegistration/happy',
  'resourceInbox/attached-idle-end',
];
const processKind = (name: string, scenario: string, shapes: string[], cpuKind: string): Kind => ({
  name,
  unit: 'process',
  cost: unitFromShape(shapeOf(shapes), eventsOf(scenario), row('actions', `Temporal actions per ${scenario}`), cpu.kinds[cpuKind]!.msPerProcess),
  from: `events and actions: ${FULL} (actions bench, "${scenario}"); writes and bytes per event: ${recorded(shapes).join(', ')}; CPU: ${CPU} "${cpuKind}"`,
});
const APPROVAL_FIXTURES = ['templateApproval/happy', 'resourceInbox/attached-idle-end'];
const approval = shapeOf(APPROVAL_FIXTURES);
// What a watching template writes each time it wakes to poll (measured: 11 events a wake-up, bench/worker-cpu.ts).
const WAKE_EVENTS = [
  'TIMER_FIRED',
  'WORKFLOW_TASK_SCHEDULED',
  'WORKFLOW_TASK_STARTED',
  'WORKFLOW_TASK_COMPLETED',
  'ACTIVITY_TASK_SCHEDULED',
  'ACTIVITY_TASK_STARTED',
  'ACTIVITY_TASK_COMPLETED',
  'WORKFLOW_TASK_SCHEDULED',
  'WORKFLOW_TASK_STARTED',
  'WORKFLOW_TASK_COMPLETED',
  'TIMER_STARTED',
];
const templateFixture = fixtures.get('templateApproval/happy')!.shape;
const wakeShape = historyShape(WAKE_EVENTS.map((type) => ({ type, bytes: templateFixture.bytes / templateFixture.events })));

// A campaign's history: its fixed part, plus per chunk its activity's events and the workflow task that takes its end.
const campaignFixture = fixtures.get('campaign/happy')!;
const fixtureChunks = campaignFixture.events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendChunk').length;
const EVENTS_PER_CHUNK = 6; // ACTIVITY_TASK_SCHEDULED/STARTED/COMPLETED + WORKFLOW_TASK_SCHEDULED/STARTED/COMPLETED
const campaignFixedEvents = campaignFixture.shape.events - fixtureChunks * EVENTS_PER_CHUNK;
const campaignRate = row('campaign', 'campaign send rate');
const RECIPIENTS = 1_000_000;
const chunkRows = chunkRowsFor(RECIPIENTS, CHUNK_SIZE, CHUNK_SECONDS, 200, windowSizeFor(200));
const campaignEvents = campaignFixedEvents + Math.ceil(RECIPIENTS / chunkRows) * EVENTS_PER_CHUNK;
const campaignActions = (row('campaign', 'Temporal actions per 1,000 campaign messages') * RECIPIENTS) / 1000;

const kinds: Kind[] = [
  processKind(`verification (SMS${GUARDED ? ', with its number guard' : ''})`, 'verification', ['verification/happy', 'numberGuard/happy'], 'verification'),
  processKind('incoming call', 'incoming call', ['voiceIncomingCall/happy'], 'incoming call'),
  processKind('callout (text to speech)', 'callout', ['voiceCallout/happy'], 'callout'),
  processKind('customer onboarding (11 workflows)', 'onboarding', ONBOARDING_FIXTURES, 'onboarding'),
  {
    name: 'template approval, to APPROVED (with its inbox)',
    unit: 'process',
    cost: {
      ...unitFromShape(approval, approval.events, fixtureActions(APPROVAL_FIXTURES)),
      cpuMs: cpu.kinds['template approval']!.msPerProcess,
    },
    from: `events, actions, writes, bytes: ${recorded(APPROVAL_FIXTURES).join(' + ')} (actions counted from their events as bench/action-counts.ts counts); CPU: ${CPU} "template approval"`,
  },
  {
    name: 'template watch, one wake-up (a poll)',
    unit: 'wake-up',
    cost: unitFromShape(wakeShape, cpu.templateWatch.eventsPerWake, cpu.templateWatch.actionsPerWake, cpu.templateWatch.msPerWake),
    from: `events, actions and CPU: ${CPU} templateWatch (${cpu.templateWatch.polls} wake-ups of ${cpu.templateWatch.templates} templates); writes: the ${WAKE_EVENTS.length} events a wake-up writes (timer fired, workflow task, the read's activity, workflow task, next timer); bytes per event: templateApproval/happy's average`,
  },
  {
    name: `conversation campaign, one message (of ${fmt(RECIPIENTS)})`,
    unit: 'message',
    cost: unitFromShape(campaignFixture.shape, campaignEvents / RECIPIENTS, campaignActions / RECIPIENTS),
    from: `actions: ${FULL} campaign "Temporal actions per 1,000 campaign messages" / 1,000 (heartbeats included); events: campaign/happy's ${campaignFixedEvents} fixed events + ${EVENTS_PER_CHUNK} per chunk (assumption from the event types) x ${fmt(Math.ceil(RECIPIENTS / chunkRows))} chunks of ${fmt(chunkRows)} (processes/campaigns/workflow/chunks.ts at 200/s), over ${fmt(RECIPIENTS)} messages; CPU: not measured (the send worker)`,
  },
];

/** Actions counted from recorded events the way bench/action-counts.ts counts them (an activity's attempts: 1 each here). */
function fixtureActions(names: string[]): number {
  const billed =
    /^EVENT_TYPE_(WORKFLOW_EXECUTION_STARTED|TIMER_STARTED|WORKFLOW_EXECUTION_SIGNALED|WORKFLOW_EXECUTION_UPDATE_(ACCEPTED|REJECTED)|UPSERT_WORKFLOW_SEARCH_ATTRIBUTES|MARKER_RECORDED|START_CHILD_WORKFLOW_EXECUTION_INITIATED|ACTIVITY_TASK_STARTED)$/;
  return recorded(names).reduce((n, name) => n + fixtures.get(name)!.events.filter((e) => billed.test(e.eventType)).length, 0);
}

// --- Loads ------------------------------------------------------------------------------------------------------
const VERIFICATIONS_PER_DAY = 10_000_000;
const TEMPLATES = 100_000;
const verification = kinds[0]!.cost;
const watch = kinds[5]!.cost;
const campaign = kinds[6]!.cost;
const verLoad = loadNeeds(verification, (VERIFICATIONS_PER_DAY / 86_400) * PEAK_FACTOR, VERIFICATIONS_PER_DAY, A);
const wakesPerDay = (TEMPLATES * 86_400_000) / POLL_MS;
const watchLoad = loadNeeds(watch, TEMPLATES / (POLL_MS / 1000), wakesPerDay, A);
const campaignSeconds = RECIPIENTS / campaignRate;
const campaignLoad = loadNeeds(campaign, campaignRate, RECIPIENTS, A);
const guardLine = () => ` Each verified number also keeps its number guard open for the guard window
(\`RELAYFLOW_VERIFICATION_GUARD_WINDOW_MS\`, ${fmt(GUARD_WINDOW_MS / 60_000)} minutes by default): about ${fmt((VERIFICATIONS_PER_DAY / 86_400) * (GUARD_WINDOW_MS / 1000))} open guards on an average
day, waiting on a timer; they cost the database rows, not worker memory unless cached.`;
const memoryPerWaiting = row('memory', 'worker memory per waiting process');

// --- The page ---------------------------------------------------------------------------------------------------
function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}
const sig = (n: number) => (n >= 100 ? fmt(n) : n >= 10 ? fmt(n, 1) : n >= 1 || n === 0 ? fmt(n, 2) : String(Number(n.toPrecision(3))));
const usd = (n: number) => `$${n >= 100 ? fmt(n) : fmt(n, 2)}`;

function loadTable(l: LoadNeeds, unit: string): string {
  const rows = [
    [`${unit} per second (planned for)`, sig(l.unitsPerSecond)],
    ['worker cores', l.cores === undefined ? 'not measured' : `${sig(l.cores)} (at ${A.coreUtilisation * 100}% busy)`],
    ['workers', l.workers === undefined ? '–' : `${l.workers} of ${A.coresPerWorker} cores (today: ${WORKERS_NOW})`],
    ['history writes per second', sig(l.writesPerSecond)],
    ['history shards', `${l.shards} (at ${A.writesPerShard} writes/s each; today: ${SHARDS_NOW})`],
    ['visibility writes per second', sig(l.visibilityWritesPerSecond)],
    [`closed histories kept (${A.retentionDays} days)`, `${sig(l.retainedGB)} GB`],
    ['Temporal actions per day', fmt(l.actionsPerDay)],
    [`Temporal Cloud per day at $${A.pricePerMillion}/M`, usd(l.costPerDay)],
  ];
  return ['| need | figure |', '|---|---|', ...rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n');
}

const limitOf = (l: LoadNeeds) =>
  firstLimit([
    { name: 'worker cores', need: l.cores ?? 0, have: WORKERS_NOW * A.coresPerWorker },
    { name: 'history shards', need: l.writesPerSecond / A.writesPerShard, have: SHARDS_NOW },
  ]);
const limitLine = (l: LoadNeeds) => {
  const f = limitOf(l);
  return f.times <= 1
    ? `Today's cluster (${WORKERS_NOW} workers, ${SHARDS_NOW} shards) holds it: the nearer limit is ${f.name} at ${fmt(f.times * 100)}% of it.`
    : `First limit: **${f.name}**, at ${sig(f.times)} times what today's cluster has (${WORKERS_NOW} workers of ${A.coresPerWorker} cores, ${SHARDS_NOW} shards).`;
};

const kindRows = kinds.map((k) => {
  const c = k.cost;
  const perCore = c.cpuMs === undefined ? '–' : fmt((1000 / c.cpuMs) * A.coreUtilisation, 1);
  return `| ${k.name} | ${sig(c.events)} | ${sig(c.writes)} | ${sig(c.bytes / 1000)} | ${sig(c.actions)} | ${c.cpuMs === undefined ? '–' : fmt(c.cpuMs, 1)} | ${perCore} | ${usd(costPerMillion(c.actions, PRICE.first))} / ${usd(costPerMillion(c.actions, PRICE.lowest))} |`;
});

const page = `# Capacity: past two workers, on paper

What relayflow needs for a given load, worked out from measured figures: history events and Temporal actions per
process (the recorded full benchmark table and the recorded histories), and worker CPU per process (a run of
\`bench/worker-cpu.ts\`). Written by \`npm run capacity\` (\`bench/capacity.ts\`) from \`${FULL}\` (${full.startedAt}, commit
${full.machine.git.commit.slice(0, 10)}), \`${CPU}\` (${cpu.measuredAt}, commit ${cpu.machine.commit}, ${cpu.machine.cpus}) and \`${FIXTURES}/\`;
do not edit it by hand: run the script again after recording new results (\`--check\` says whether it is current).
Every figure says where it comes from; an **assumption** says so and why.

## Per process kind

| kind | history events | history writes (est.) | history kB | Temporal actions | worker CPU ms | per core-second at ${A.coreUtilisation * 100}% | Cloud per million of them, at $${PRICE.first} / $${PRICE.lowest} per M actions |
|---|---|---|---|---|---|---|---|
${kindRows.join('\n')}

Where each row comes from:
${kinds.map((k) => `- ${k.name}: ${k.from}.`).join('\n')}

How the columns are made:
- **history events**: the whole process (its own workflow and those it starts), counted from the histories once it
  closed. **history writes (est.)**: the server's write transactions (state transitions), estimated from the event
  types of the named recorded histories: every event is one, except those written with the workflow task
  completion that issued them (the commands: timers, activities scheduled, markers, upserts, update answers, the
  close) and a workflow task scheduled with what made it due (\`bench/capacity-model.ts\`); the ratio is scaled to
  the measured event count. **history kB**: the same histories' events encoded as the server stores them
  (protobuf, payloads encrypted by relayflow's codec), per event, times the event count.
- **Temporal actions**: what Temporal Cloud bills, counted from the histories by \`bench/action-counts.ts\`
  (heartbeats are not in histories; the campaign's figure adds their upper bound). Two counts may differ from
  the bill: several local activities of one workflow task are one action (each marker is counted here), and a
  child workflow's start is billed twice (initiated, then attempted; counted once here).
- **worker CPU ms**: \`bench/worker-cpu.ts\`: the worker in its own process (\`workers/main.ts\`), its CPU time
  (user + system, every thread) over N processes of the kind run to their end through the API, less the idle
  worker's (${fmt(cpu.idleMsPerSecond, 1)} ms/s) over the same time, divided by N (${Object.entries(cpu.kinds)
    .map(([k, v]) => `${k} ${v.processes}`)
    .join(', ')}). Everything else (the Temporal dev server, the API, the sandbox, the load) shared the same
  ${cpu.machine.cpus.split(' ')[0]} cores, so a busy host may inflate it. The worker's sticky cache held every
  process: a worker whose cache evicts replays histories on each wake-up, which costs more.
- **Cloud per million**: actions x ${PRICE.first} and x ${PRICE.lowest} dollars. ${PRICE.source}. Storage and the plan's fee are
  billed apart.

## Three loads

Assumptions shared by the three: worker cores are planned at **${A.coreUtilisation * 100}% busy** (headroom for bursts and for
replays after cache evictions; an assumption), a worker has **${A.coresPerWorker} cores** (the benchmark machine's; an assumption),
a history shard takes **${A.writesPerShard} writes per second** (an assumption, see "History shards"), closed histories are kept
**${A.retentionDays} days** (the namespace retention \`npm run cluster\` sets, \`scripts/lib/cluster/temporal-server.ts\`), and actions
cost the first tier's **$${A.pricePerMillion} per million**.

### 10 million verifications a day
${fmt(VERIFICATIONS_PER_DAY)} a day is ${sig(VERIFICATIONS_PER_DAY / 86_400)} a second on average; planned for **${PEAK_FACTOR} times that** at the
busiest time (an assumption: a day's traffic follows waking hours; measure the real peak before buying).

${loadTable(verLoad, 'verifications')}

${limitLine(verLoad)}${GUARDED ? guardLine() : ''} A month is
${fmt(verLoad.actionsPerDay * 30)} actions: past the published tiers (200 M a month), so the price is a contract's.

### A campaign of 1 million recipients
The campaign bench measured **${sig(campaignRate)} messages a second** at an app limit of 200/s (\`${FULL}\`, campaign send rate): the
platform's app limit, not relayflow, sets the pace. At that rate ${fmt(RECIPIENTS)} recipients take ${fmt(campaignSeconds / 60)} minutes
(at the project's 800/s, ${fmt(RECIPIENTS / 800 / 60)}). Its workflow is one history that stays small: chunks of ${fmt(chunkRows)} rows
(\`processes/campaigns/workflow/chunks.ts\` at 200/s), a few events each, never one per message.

${loadTable(campaignLoad, 'messages')}

The send worker's CPU per message is not measured (\`bench/worker-cpu.ts\` has no shared PostgreSQL store for it);
\`bench/campaign.ts\` reports its peak memory (${/send worker peak RSS \d+ MiB/.exec(bench('campaign').notes!.join(' '))![0]}). The day's figures
are for one such campaign a day. One campaign is ${fmt(campaignActions)} actions, ${usd(costPerMillion(campaignActions, PRICE.first) / 1e6)} at $${PRICE.first} per million. First limit: **the app's outbound
rate** at the platform; a history shard sees about ${sig(campaignLoad.writesPerSecond)} writes a second from it.

### 100,000 templates watched
An approved template keeps watching its quality: when no webhook came for \`RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS\`
(${fmt(POLL_MS / 1000)} s by default, \`common/config.ts\`) it wakes and reads the template from the platform
(\`processes/provisioning/workflow/follow.ts\`, \`process.ts\`). With no webhooks at all that is ${fmt(TEMPLATES)} / ${fmt(POLL_MS / 1000)} s, the most it
wakes; each webhook puts the next poll off.

${loadTable(watchLoad, 'wake-ups')}

${limitLine(watchLoad)} Memory: the memory bench measured **${fmt(memoryPerWaiting, 3)} MB** of worker memory per waiting process
with its inbox (\`${FULL}\`, memory); ${fmt(TEMPLATES)} templates cached would need ${fmt((TEMPLATES * memoryPerWaiting) / 1000)} GB over the workers,
so a real fleet holds a part of them in its cache (\`RELAYFLOW_WORKER_CACHED_WORKFLOWS\`, 200 by default) and
replays the others' histories at each wake-up, which the CPU figure above does not include. The reads are
${sig(watchLoad.unitsPerSecond)} platform calls a second. ${fmt(watchLoad.actionsPerDay * 30)} actions a month make the watch the costliest of the
three on Temporal Cloud: a longer poll interval, or none while webhooks arrive, is the lever.

## History shards
A history shard takes one persistence operation at a time by default (Temporal's documentation, "What is a
History Shard?", read in a preview build of docs.temporal.io,
https://temporal-documentation-acmimw6ix.preview.thundergun.io/concepts/what-is-a-history-shard: "the number of History Shards represents the
number of concurrent database operations that can occur"; the server setting \`history.shardIOConcurrency\` is 1 by
default, per Temporal's forum, https://community.temporal.io/t/temporal-shards-configured-in-shards-table/15533).
No public figure gives a shard's writes per second: it is the database's commit latency that bounds it. The
**${A.writesPerShard} writes per second per shard** used here is an **assumption**: a few milliseconds per PostgreSQL commit allows a
few hundred in series, planned at well under that. The count is fixed when the cluster's database is created
(\`numHistoryShards\`; \`deploy/temporal/docker.yaml\` defaults to ${SHARDS_NOW}), so it is sized for the largest load planned, as a
power of two; Temporal's page says clusters have run from 1 to 128K shards, each with tens of thousands of workflows.

## Database
History writes and visibility writes above are transactions, not disk operations: each history write updates
the execution's row and appends its events, and may add timer and transfer task rows (a few row writes each; the
exact count depends on the server version). Storage is the closed histories over the retention, plus the open
ones (the ${fmt(TEMPLATES)} templates' histories stay bounded by continue-as-new), plus PostgreSQL's indexes and
write-ahead log, which are not counted here.

## Gaps
- Worker CPU was measured once, on ${cpu.machine.cpus.split(' ')[0]} cores shared with the server, the API and the load: a figure to
  re-measure on the deployment's machines, not a guarantee.
- The send worker's CPU per campaign message is not measured.
- Replays after cache evictions (any fleet holding more processes than its caches) are not in the CPU figures.
- History writes are an estimate from event types, not a count from the server's metrics.
- The shard throughput and the peak factor are assumptions; the actions price is the published list price.
`;

if (process.argv.includes('--check')) {
  const now = (() => {
    try {
      return read(OUT);
    } catch {
      return '';
    }
  })();
  if (now !== page) {
    process.stderr.write(`${OUT} is not current: run \`npm run capacity\` (bench/capacity.ts)\n`);
    process.exit(1);
  }
  process.stdout.write(`${OUT} is current\n`);
} else {
  writeFileSync(join(ROOT, OUT), page);
  process.stdout.write(`wrote ${OUT}\n`);
}
