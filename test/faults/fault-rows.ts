// The fault table's rows: what each breaks, on the cluster (test/faults/rig.ts) or on the platform (the sandbox's
// fault routes), and what it brings back once the load has settled. `npm run test:cluster` runs them in order;
// `npm run soak` draws them at random (scripts/soak.ts).
import { Connection } from '@temporalio/client';
import { CLUSTER_NAMESPACE } from '../../scripts/lib/cluster/topology.js';
import type { Rig } from './rig.js';
import { settle, startLoad, type Load, type Row } from './scenario.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the workers and APIs run with under the fault suite. */
export const FAULT_ENV: Record<string, string> = {
  // Short enough for a slow answer to outlast it (the classic duplicate), and polls that find what a dropped
  // callback did not say within the scenario.
  PLATFORM_REQUEST_TIMEOUT_MS: '2000',
  RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '3000',
  RELAYFLOW_SENDERID_POLL_INTERVAL_MS: '3000',
  // A killed worker's campaign chunk is retried elsewhere once its heartbeat is this late.
  RELAYFLOW_CAMPAIGN_HEARTBEAT_TIMEOUT_MS: '3000',
  RELAYFLOW_CAMPAIGN_CHUNK_SIZE: '20',
  // The suite's event receiver is in the test process, on 127.0.0.1 (test/faults/events.ts).
  RELAYFLOW_EVENTS_ALLOW_PRIVATE_URLS: 'on',
  // A killed worker's deliveries are taken again once their lease (this plus 5 s) runs out.
  RELAYFLOW_EVENTS_TIMEOUT_MS: '5000',
};

export interface Fault {
  name: string;
  /** Runs once the load is started; the load's starts go on meanwhile. */
  breakIt(rig: Rig, load: Load): Promise<void>;
  /** Runs beside the count, while the load is driven to its end (what waits for processes to finish). */
  whileSettling?(rig: Rig): Promise<void>;
  /**
   * Events received twice: none unless this says (`allowed`: a restart may cut a delivery; `cut`: the fault cuts
   * deliveries on their way, at least one, and each must come again).
   */
  eventRepeats?: 'allowed' | 'cut';
}

/** How long the receiver holds its answers around a kill: long enough for a kill to land while they wait. */
const HOLD_MS = 2000;

/**
 * Waits until the receiver holds the answer of a delivery `part` sent, with a second of the hold still to go (the
 * kill lands before the answer), and returns the webhook-ids of those.
 */
async function deliveriesOnTheirWay(rig: Rig, part: string, timeoutMs = 30_000): Promise<string[]> {
  const pid = await rig.pidOf(part);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const fresh = (await rig.events.heldFrom(pid)).filter((d) => d.at > Date.now() - (HOLD_MS - 1000));
    if (fresh.length) return fresh.map((d) => d.webhookId);
    if (Date.now() > deadline) throw new Error(`${part} had no event delivery on its way within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The build ID the upgrade row moves the workers to (the cluster starts on its bundle's hash). */
const UPGRADE_BUILD = 'upgraded';

/**
 * Waits until no running process is pinned to a build other than `build`: the old version is drained, so its
 * workers can stop. Reads the server's own record of each run (its versioning info).
 */
async function drainedExcept(rig: Rig, build: string, timeoutMs = 90_000): Promise<void> {
  const connection = await Connection.connect({ address: rig.cluster.temporalAddress });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pinnedElsewhere: string[] = [];
      // The raw service: the runs' memos are encrypted, and only their versioning info is read.
      let nextPageToken: Uint8Array | undefined;
      do {
        const page = await connection.workflowService.listWorkflowExecutions({
          namespace: CLUSTER_NAMESPACE,
          query: 'ExecutionStatus = "Running"',
          pageSize: 1000,
          ...(nextPageToken ? { nextPageToken } : {}),
        });
        for (const run of page.executions ?? []) {
          const { workflowExecutionInfo } = await connection.workflowService.describeWorkflowExecution({
            namespace: CLUSTER_NAMESPACE,
            execution: { workflowId: run.execution?.workflowId ?? null, runId: run.execution?.runId ?? null },
          });
          const v = workflowExecutionInfo?.versioningInfo;
          // 1: PINNED (temporal.api.enums.v1.VersioningBehavior).
          if (Number(v?.behavior) === 1 && v?.deploymentVersion?.buildId !== build) pinnedElsewhere.push(run.execution?.workflowId ?? '?');
        }
        nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
      } while (nextPageToken);
      if (!pinnedElsewhere.length) return;
      if (Date.now() > deadline) throw new Error(`still pinned to the old build after ${timeoutMs} ms: ${pinnedElsewhere.join(', ')}`);
      await sleep(500);
    }
  } finally {
    await connection.close();
  }
}

/** Reviews long enough that every fault lands while processes are in the middle of them (the try-it blocks change them). */
async function prepareReviewers(rig: Rig): Promise<void> {
  await rig.sandboxControl('PUT', '/provisioning/reviewer', {
    templates: { outcome: 'approve', delayMs: 1500 },
    chatbSenders: { outcome: 'activate', delayMs: 1500 },
  });
  await rig.sandboxControl('PUT', '/senderid/reviewer', { stepMs: 500 });
}

async function clearFaults(rig: Rig): Promise<void> {
  await rig.sandboxControl('DELETE', '/faults');
  await rig.sandboxControl('PUT', '/provisioning/webhook-faults', {});
  await rig.sandboxControl('PUT', '/senderid/callback-faults', {});
}

/** Every part of the cluster running again: after a row, whatever it left down is started. */
async function mendCluster(rig: Rig): Promise<void> {
  const { postgres, temporal, sandbox, workers, apis } = rig.cluster;
  for (const part of [postgres, temporal, sandbox, ...workers, ...apis]) if (!part.running()) await part.start();
}

// Each waits for every start to be answered first: a worker or server down past a verification's start deadline
// ends it ABANDONED (its caller got a 504), and a keyed retry is then rightly a 409, not a start. The faults
// still land while every process is mid-way (reviews, codes awaited, sends).
export const FAULTS: readonly Fault[] = [
  {
    name: 'a worker SIGKILLed mid-process and mid-delivery; the other finishes its work',
    eventRepeats: 'cut',
    async breakIt(rig, load) {
      // Answers held: the worker dies with events sent whose answers it waits for, which the other sends again.
      rig.events.hold(HOLD_MS);
      await load.started;
      await sleep(800);
      const onTheirWay = await deliveriesOnTheirWay(rig, 'worker-1');
      // Left down until the load has settled: the other worker alone must finish every process.
      await rig.cluster.workers[0]!.kill();
      load.cut.push(...onTheirWay);
      await sleep(HOLD_MS);
      rig.events.hold(0);
    },
  },
  {
    name: 'an API instance SIGKILLed while callbacks arrive; they reach the other through the front',
    async breakIt(rig, load) {
      // Reviews end about 1.5 s after the starts: their webhooks and callbacks meet a dead instance. Events are
      // on their way meanwhile (their answers held), from the workers: none is lost or sent twice.
      rig.events.hold(HOLD_MS);
      await load.started;
      await rig.cluster.apis[0]!.kill();
      await sleep(HOLD_MS);
      rig.events.hold(0);
    },
  },
  {
    name: 'the Temporal server SIGKILLed and restarted; processes resume from PostgreSQL',
    async breakIt(rig, load) {
      await load.started;
      await sleep(500);
      await rig.cluster.temporal.kill();
      await sleep(2000);
      await rig.cluster.temporal.start();
    },
  },
  {
    name: 'PostgreSQL restarted under load (an immediate shutdown); everything recovers by itself',
    // A delivery whose result could not be recorded while the store was down is sent again.
    eventRepeats: 'allowed',
    async breakIt(rig, load) {
      await load.started;
      await sleep(500);
      await rig.cluster.postgres.kill();
      await sleep(3000);
      await rig.cluster.postgres.start();
    },
  },
  {
    name: 'platform 5xx and 429 storms, answers slower than the client waits',
    async breakIt(rig) {
      await rig.sandboxControl('POST', '/faults', { status: 503, count: 12 });
      await rig.sandboxControl('POST', '/faults', { status: 429, count: 8, retryAfterSeconds: 1 });
      await sleep(1500);
      // The platform does the work, then answers after the client gave up: the retry must not make a second one.
      await rig.sandboxControl('POST', '/latency', { ms: 3000, phase: 'after' });
      await sleep(4000);
      await rig.sandboxControl('POST', '/latency', { ms: 0, phase: 'after' });
      // Then slow to start the work, but within the client's timeout.
      await rig.sandboxControl('POST', '/latency', { ms: 1200 });
      await sleep(3000);
      await rig.sandboxControl('POST', '/latency', { ms: 0 });
    },
  },
  {
    name: 'an upgrade: a new build beside the old, which drains and stops; pinned kinds finish on the old',
    async breakIt(rig, load) {
      await load.started;
      await sleep(800);
      // The second worker comes back on the new build and makes it current: new processes start there and
      // auto-upgrade ones move to it, while the first serves what is pinned to the old build.
      const second = rig.cluster.workers[1]!;
      await second.stop();
      await second.start({ RELAYFLOW_WORKER_BUILD_ID: UPGRADE_BUILD });
    },
    async whileSettling(rig) {
      await drainedExcept(rig, UPGRADE_BUILD);
      const first = rig.cluster.workers[0]!;
      await first.stop();
      await first.start({ RELAYFLOW_WORKER_BUILD_ID: UPGRADE_BUILD });
    },
  },
  {
    name: 'callbacks duplicated, reordered and dropped',
    async breakIt(rig) {
      await rig.sandboxControl('PUT', '/provisioning/webhook-faults', { duplicate: 4, reorder: true, drop: 2 });
      await rig.sandboxControl('PUT', '/senderid/callback-faults', { duplicate: 2, reorder: true, drop: 1 });
      // The platform-wide fault hits whichever callback comes next (a verification's request event too), so it
      // only duplicates; dropped and reordered ones are the areas' own faults.
      await rig.sandboxControl('POST', '/callback-faults', { duplicate: 3 });
    },
  },
];

/**
 * One row: `perKind` processes of every kind started through the front, the fault after `delayMs` (the soak draws
 * it), the count once the load has settled; then the platform's faults are cleared and whatever the fault left
 * down is started again.
 */
export async function runFaultRow(rig: Rig, fault: Fault, opts: { perKind: number; name?: string; delayMs?: number }): Promise<Row> {
  await prepareReviewers(rig);
  const load = await startLoad(rig, opts.perKind);
  try {
    try {
      if (opts.delayMs) await sleep(opts.delayMs);
      await fault.breakIt(rig, load);
    } finally {
      // The load goes on to its end (faults still queued are cleared after it).
      await load.started.catch(() => undefined);
    }
    const [row] = await Promise.all([settle(rig, opts.name ?? fault.name, load), fault.whileSettling?.(rig)]);
    return row;
  } finally {
    rig.events.hold(0);
    await clearFaults(rig);
    await mendCluster(rig);
  }
}
