// The event outbox: processes' state changes, written by each process's local activity (at least once: the
// event ID makes a repeat a no-op) and fanned out in the same statement to every subscription that wants them.
// A process schedules each change's write as it makes it, so two writes can race: event n of a run is written
// only once n - 1 is there, which keeps positions (and deliveries) in the order the process made them.
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import type { ProcessEventBatch, ProcessEventChange } from '../contracts/process-events.js';
import type { Sql } from './sql.js';

/** The event's ID (the `webhook-id` of its deliveries): the same for every attempt to record it. */
export const processEventId = (processId: string, runId: string, n: number) =>
  `evt_${createHash('sha256').update(`${processId}\u0000${runId}\u0000${n}`).digest('hex').slice(0, 32)}`;

// $1 event ID, $2 process, $3 run, $4 n, $5 kind, $6 state, $7 previous state, $8 reason, $9 time, $10 tenant. `outcome`:
// recorded, or there (recorded before), or waiting (its predecessor is not written yet). A subscription of one customer
// gets that customer's events only; one of every customer (tenant NULL) gets them all.
const RECORD = `
  WITH ready AS (
    SELECT 1 WHERE $4::integer = 0 OR EXISTS (SELECT 1 FROM relayflow_events WHERE run_id = $3 AND n = $4::integer - 1)
  ), inserted AS (
    INSERT INTO relayflow_events (event_id, process_id, run_id, n, kind, state, previous_state, reason, occurred_at, tenant)
    SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 FROM ready
    ON CONFLICT (event_id) DO NOTHING
    RETURNING position, state
  ), fanned AS (
    INSERT INTO relayflow_event_deliveries (subscription_id, position, process_id, status)
    SELECT s.id, i.position, $2, 'pending'
      FROM inserted i JOIN relayflow_event_subscriptions s
        ON (s.kinds IS NULL OR $5 = ANY (s.kinds)) AND (s.states IS NULL OR i.state = ANY (s.states))
       AND (s.tenant IS NULL OR s.tenant = $10::text)
     ORDER BY s.id
    RETURNING 1
  )
  SELECT CASE WHEN EXISTS (SELECT 1 FROM inserted) THEN 'recorded'
              WHEN EXISTS (SELECT 1 FROM relayflow_events WHERE event_id = $1) THEN 'there'
              ELSE 'waiting' END AS outcome,
         (SELECT count(*) FROM fanned) AS deliveries`;

/** How long a write waits for its predecessor (written by a call running beside it) before it fails and is retried. */
const WAIT_FOR_PREVIOUS_MS = 5_000;

export class ProcessEventStore {
  constructor(readonly sql: Sql) {}

  /** Records a run's changes in order (reasons already masked); a change recorded before changes nothing. */
  async record(batch: ProcessEventBatch): Promise<void> {
    for (const e of batch.events) await this.recordOne(batch, e);
  }

  private async recordOne(batch: ProcessEventBatch, e: ProcessEventChange): Promise<void> {
    const params = [
      processEventId(batch.processId, batch.runId, e.n),
      batch.processId,
      batch.runId,
      e.n,
      batch.kind,
      e.state,
      e.previousState ?? null,
      e.reason ?? null,
      e.at,
      batch.tenant ?? null,
    ];
    const until = Date.now() + WAIT_FOR_PREVIOUS_MS;
    for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
      const [row] = await this.sql.query<{ outcome: 'recorded' | 'there' | 'waiting' }>(RECORD, params);
      if (row?.outcome !== 'waiting') return;
      if (Date.now() > until) throw new Error(`event ${e.n} of ${batch.processId} waits for event ${e.n - 1}, not recorded yet`);
      await sleep(wait);
    }
  }
}
