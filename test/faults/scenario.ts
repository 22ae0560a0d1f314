// One fault scenario's load and its count: processes of every kind started through the API, driven to their
// end while the test breaks things, then counted from the sandbox's records and the events the processes told
// (test/faults/events.ts) into one row of the table.
import { listedProcesses } from './events.js';
import { KINDS, type Started } from './kinds.js';
import type { Rig } from './rig.js';

export interface Row {
  scenario: string;
  processes: number;
  completed: number;
  duplicates: number;
  losses: number;
  // The events (absent from a row that failed before its count: scripts/soak.ts makes one).
  /** The processes whose events were checked: the row's and those they started (an onboarding's steps). */
  eventProcesses?: number;
  /** Processes whose events are not all there, in order, verified, ending in their listed state: 0 is right. */
  eventLosses?: number;
  /** Deliveries received again under the same webhook-id: 0 unless something died mid-delivery (at least once). */
  eventRepeats?: number;
  /** The kinds whose every process told all its events (test/faults/kinds.ts names them). */
  eventKinds?: string[];
  /** Deliveries a kill cut on their way (sent, the answer held by the receiver): each must come again. */
  deliveriesCut?: number;
  /** What went wrong, process by process: empty when the row is clean. */
  findings: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Callback {
  id: string;
  area: string;
  outcome: string;
  url: string;
  body?: { event?: string };
}

/**
 * A verification's request event is a question, not a notification: the platform asks once, without retries,
 * and an unanswered one denies that verification (the process then ends DENIED, which the count shows).
 */
const isQuestion = (c: Callback) => c.body?.event === 'VerificationRequestEvent';

const callbacks = async (rig: Rig) => (await rig.sandboxControl('GET', '/callbacks')).callbacks as Callback[];

export interface Load {
  started: Promise<Started[]>;
  /** The sandbox's callbacks before the scenario: only later ones are counted. */
  callbacksBefore: Set<string>;
  /** When the load began: event repeats are counted from then. */
  since: number;
  /** The webhook-ids of deliveries the fault cut on their way (a worker killed while the receiver held them). */
  cut: string[];
}

/** Starts `perKind` processes of every kind at once (they keep retrying their start while things are broken). */
export async function startLoad(rig: Rig, perKind: number): Promise<Load> {
  const since = Date.now();
  const callbacksBefore = new Set((await callbacks(rig)).map((c) => c.id));
  const started = Promise.all(KINDS.flatMap((k) => Array.from({ length: perKind }, () => k.start(rig))));
  return { started, callbacksBefore, since, cut: [] };
}

async function view(rig: Rig, processId: string): Promise<{ state?: string; history?: { state: string }[] }> {
  try {
    const res = await rig.api('GET', `/v1/processes/${encodeURIComponent(processId)}`);
    return res.status === 200 ? (res.body as { state?: string; history?: { state: string }[] }) : {};
  } catch {
    return {};
  }
}

/**
 * The count reads the platform like any client: a fault the row left queued (a 503, a slow answer) may meet it.
 * It is the observer, not the observed, so it tries again.
 */
async function counted<T>(count: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await count();
    } catch (err) {
      if (attempt >= 5) throw err;
      await sleep(1000);
    }
  }
}

/**
 * Waits for every process to reach its final state (driving those a user drives), then counts: a process not
 * final, a resource the platform never got, or a callback the platform gave up on is a loss; a second resource
 * (or SMS) for one process, or the final state entered twice, is a duplicate.
 */
export async function settle(rig: Rig, scenario: string, load: Load, timeoutMs = 90_000): Promise<Row> {
  const started = await load.started;
  const deadline = Date.now() + timeoutMs;
  const row: Row = {
    scenario,
    processes: started.length,
    completed: 0,
    duplicates: 0,
    losses: 0,
    eventLosses: 0,
    eventRepeats: 0,
    eventKinds: [],
    deliveriesCut: load.cut.length,
    findings: [],
  };
  await Promise.all(
    started.map(async (s) => {
      const kind = KINDS.find((k) => k.kind === s.kind)!;
      await kind.drive?.(rig, s);
      let v = await view(rig, s.processId);
      while (v.state !== kind.final && Date.now() < deadline) {
        await sleep(250);
        v = await view(rig, s.processId);
      }
      const finals = (v.history ?? []).filter((h) => h.state === kind.final).length;
      const made = await counted(() => kind.count(rig, s));
      if (v.state === kind.final) row.completed++;
      else {
        row.losses++;
        row.findings.push(`${s.processId}: ${v.state ?? 'unreadable'} instead of ${kind.final}`);
      }
      if (finals > 1 || made > 1) {
        row.duplicates += Math.max(finals, made) - 1;
        row.findings.push(`${s.processId}: ${kind.final} ${finals} times, ${made} on the platform`);
      }
      if (made === 0) {
        row.losses++;
        row.findings.push(`${s.processId}: nothing on the platform`);
      }
    }),
  );
  // The platform retries a callback for about 30 s: wait for the scenario's last ones to settle.
  let fresh: Callback[] = [];
  for (const until = Date.now() + 40_000; Date.now() < until; await sleep(500)) {
    fresh = (await callbacks(rig)).filter((c) => !load.callbacksBefore.has(c.id));
    if (!fresh.some((c) => c.outcome === 'pending')) break;
  }
  for (const c of fresh.filter((x) => (x.outcome === 'failed' || x.outcome === 'pending') && !isQuestion(x))) {
    row.losses++;
    row.findings.push(`${c.area} callback ${c.id} to ${c.url}: ${c.outcome}`);
  }
  // The processes the row's processes started (an onboarding's steps) tell their events too.
  const listed = await counted(() => listedProcesses(rig.api, new Date(load.since)));
  const children = listed.filter((p) => !started.some((s) => s.processId === p.processId));
  const events = await rig.events.check([...started, ...children], { since: load.since });
  row.eventProcesses = started.length + children.length;
  row.eventLosses = events.losses;
  row.eventRepeats = events.repeats;
  row.eventKinds = KINDS.map((k) => k.kind).filter((k) => started.some((s) => s.kind === k) && !events.kindsWithout.includes(k));
  row.findings.push(...events.findings);
  for (const id of load.cut) {
    if (rig.events.received(id) < 2) row.findings.push(`delivery ${id}, cut on its way by the fault, not delivered again`);
  }
  return row;
}

export function formatTable(rows: Row[]): string {
  const head = ['scenario', 'processes', 'completed', 'duplicates', 'losses', 'event losses', 'event repeats'];
  const cells = rows.map((r) => [r.scenario, ...[r.processes, r.completed, r.duplicates, r.losses, r.eventLosses ?? '-', r.eventRepeats ?? '-'].map(String)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}
