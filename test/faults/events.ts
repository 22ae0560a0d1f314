// The fault suite's event subscriber: one subscription (every kind, every state) made through the front with the
// admin key, delivering to a receiver in the test process that checks each delivery's signature as it arrives
// (Standard Webhooks' reference library: its timestamp is fresh then). After a row, each of its processes must have
// told every change: first its start, each next event from the state the one before ended in, the last one the
// state the process is listed in. An event received again under the same webhook-id is a repeat (at least once).
import { readdir, readFile, readlink } from 'node:fs/promises';
import { Webhook } from 'standardwebhooks';
import { startEventReceiver, type EventReceiver, type ReceivedEvent } from '../helpers/event-receiver.js';

interface Delivered {
  type: string;
  data: { eventId: string; processId: string; kind: string; state: string; previousState?: string };
}

/** One request the receiver got: its event when the signature held, else why not. */
interface Arrival {
  webhookId: string;
  at: number;
  event?: Delivered;
  problem?: string;
}

type Api = (method: string, path: string) => Promise<{ status: number; body: Record<string, unknown> }>;

export interface EventWatch {
  receiver: EventReceiver;
  subscriptionId: string;
  /** Holds each answer `ms` (0: at once): attempts stay on their way for a while, for a kill to meet them. */
  hold(ms: number): void;
  /** Deliveries the receiver holds the answer of, sent by the process `pid` (read from its sockets in /proc). */
  heldFrom(pid: number): Promise<{ webhookId: string; at: number }[]>;
  /** How many times the delivery with this webhook-id was received. */
  received(webhookId: string): number;
  /** Checks the processes' events, waiting up to `timeoutMs` for late ones; repeats count from `since`. */
  check(processes: readonly { processId: string; kind: string; runs?: number }[], opts: { since: number; timeoutMs?: number }): Promise<EventCount>;
  close(): Promise<void>;
}

interface EventCount {
  /** Processes whose events are missing, out of order, unverified or not ending in their listed state. */
  losses: number;
  /** Deliveries received again (the same webhook-id) since the row began. */
  repeats: number;
  /** The kinds (as the row names them) with a process whose events are not all there. */
  kindsWithout: string[];
  findings: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const header = (e: ReceivedEvent, name: string) => [e.headers[name]].flat()[0] ?? '';

/**
 * What is wrong with a process's events, or undefined: each event once (by webhook-id, first arrival), the first a
 * start, each next from the state before (a process followed again after a final state starts once per run).
 */
export function chainProblem(arrivals: readonly Arrival[], listed: string | undefined, runs = 1): string | undefined {
  const forged = arrivals.find((a) => a.problem);
  if (forged) return `delivery ${forged.webhookId}: ${forged.problem}`;
  const seen = new Set<string>();
  const chain: Delivered[] = [];
  for (const a of arrivals) {
    if (seen.has(a.webhookId)) continue;
    seen.add(a.webhookId);
    chain.push(a.event!);
  }
  if (chain.length === 0) return 'no event';
  let starts = 0;
  for (const [i, e] of chain.entries()) {
    const { state, previousState } = e.data;
    if (e.type === 'process.started' && previousState === undefined && (i === 0 || ++starts < runs)) continue;
    if (i === 0) return `the first event is ${e.type} to ${state} from ${previousState ?? 'nothing'}`;
    const before = chain[i - 1]!.data.state;
    if (e.type !== 'process.state_changed' || previousState !== before) {
      return `event ${i + 1} (${e.type} to ${state} from ${previousState ?? 'nothing'}) follows one that ended in ${before}`;
    }
  }
  const last = chain.at(-1)!.data.state;
  if (listed === undefined) return `its state is unreadable (events end in ${last})`;
  return last === listed ? undefined : `events end in ${last}, the process is listed ${listed} (${chain.map((e) => e.data.state).join(' > ')})`;
}

/** The ports of the process's connections to `port` on this machine: its sockets' inodes matched in /proc/net/tcp. */
async function portsTo(pid: number, port: number): Promise<Set<number>> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
    const m = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''));
    if (m) inodes.add(m[1]!);
  }
  const ports = new Set<number>();
  for (const line of (await readFile('/proc/net/tcp', 'utf8')).split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10 || !inodes.has(cols[9]!)) continue;
    if (parseInt(cols[2]!.split(':')[1]!, 16) === port) ports.add(parseInt(cols[1]!.split(':')[1]!, 16));
  }
  return ports;
}

/** Subscribes to every event through `api` (an admin key), delivered to a receiver started here. */
export async function watchEvents(api: (method: string, path: string, body?: unknown) => ReturnType<Api>): Promise<EventWatch> {
  const byProcess = new Map<string, Arrival[]>();
  const times = new Map<string, number[]>();
  let secret = '';
  const early: ReceivedEvent[] = [];
  const take = (e: ReceivedEvent) => {
    const webhookId = header(e, 'webhook-id');
    times.set(webhookId, [...(times.get(webhookId) ?? []), e.at]);
    let arrival: Arrival;
    let processId: string;
    try {
      const event = new Webhook(secret).verify(e.body, e.headers as Record<string, string>) as Delivered;
      arrival = { webhookId, at: e.at, event };
      processId = event.data.processId;
      if (event.data.eventId !== webhookId) arrival = { webhookId, at: e.at, problem: `webhook-id ${webhookId} for event ${event.data.eventId}` };
    } catch (err) {
      arrival = { webhookId, at: e.at, problem: `not verified: ${(err as Error).message}` };
      processId = String((JSON.parse(e.body) as Partial<Delivered>).data?.processId);
    }
    byProcess.set(processId, [...(byProcess.get(processId) ?? []), arrival]);
  };
  // Nothing is delivered before the subscription exists, but its secret is known only from the answer: a
  // delivery racing that answer is checked the moment the secret is there.
  const receiver = await startEventReceiver({ onReceived: (e) => (secret ? take(e) : early.push(e)) });
  const res = await api('POST', '/v1/event-subscriptions', { url: receiver.url, description: 'the fault suite: every kind, every state' });
  if (res.status !== 201) {
    await receiver.close();
    throw new Error(`POST /v1/event-subscriptions: ${res.status} ${JSON.stringify(res.body)}`);
  }
  secret = res.body.secret as string;
  early.splice(0).forEach(take);
  const receiverPort = Number(new URL(receiver.url).port);

  const listedState = async (processId: string): Promise<string | undefined> => {
    try {
      const r = await api('GET', `/v1/processes/${encodeURIComponent(processId)}`);
      return r.status === 200 ? (r.body.state as string) : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    receiver,
    subscriptionId: res.body.id as string,
    hold: (ms) => receiver.hold(ms),
    received: (webhookId) => times.get(webhookId)?.length ?? 0,
    async heldFrom(pid) {
      const ports = await portsTo(pid, receiverPort);
      return receiver
        .held()
        .filter((e) => ports.has(e.remotePort ?? -1))
        .map((e) => ({ webhookId: header(e, 'webhook-id'), at: e.at }));
    },
    async check(processes, { since, timeoutMs = 60_000 }) {
      const problems = new Map<string, string>(processes.map((p) => [p.processId, 'not checked']));
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await Promise.all(
          [...problems.keys()].map(async (id) => {
            const p = processes.find((x) => x.processId === id)!;
            const problem = chainProblem(byProcess.get(id) ?? [], await listedState(id), p.runs);
            if (problem) problems.set(id, problem);
            else problems.delete(id);
          }),
        );
        if (problems.size === 0 || Date.now() > deadline) break;
        await sleep(500);
      }
      const repeats = [...times.values()].filter((at) => at.length > 1 && at.slice(1).some((t) => t >= since)).length;
      const kindsWithout = [...new Set(processes.filter((p) => problems.has(p.processId)).map((p) => p.kind))];
      const findings = [...problems].map(([id, problem]) => `${id}: events: ${problem}`);
      return { losses: problems.size, repeats, kindsWithout, findings };
    },
    close: () => receiver.close(),
  };
}

/** Every process the API lists (started at or after `startedAfter`, when given), with how many runs of it are listed. */
export async function listedProcesses(api: Api, startedAfter?: Date): Promise<{ processId: string; kind: string; runs: number }[]> {
  const runs = new Map<string, { processId: string; kind: string; runs: number }>();
  const after = startedAfter ? `&startedAfter=${encodeURIComponent(startedAfter.toISOString())}` : '';
  let token = '';
  do {
    const res = await api('GET', `/v1/processes?pageSize=1000${after}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`);
    if (res.status !== 200) throw new Error(`GET /v1/processes: ${res.status} ${JSON.stringify(res.body)}`);
    for (const p of res.body.processes as { processId: string; kind: string }[]) {
      const seen = runs.get(p.processId);
      if (seen) seen.runs++;
      else runs.set(p.processId, { processId: p.processId, kind: p.kind, runs: 1 });
    }
    token = res.body.nextPageToken as string;
  } while (token);
  return [...runs.values()];
}
