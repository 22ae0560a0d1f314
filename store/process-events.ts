// The event outbox: processes' state changes, written by each process's local activity (at least once: the
// event ID makes a repeat a no-op) and fanned out in the same statement to every subscription that wants them.
import { createHash } from 'node:crypto';
import type { ProcessEventBatch } from '../contracts/process-events.js';
import type { Sql } from './sql.js';

/** The event's ID (the `webhook-id` of its deliveries): the same for every attempt to record it. */
export const processEventId = (processId: string, runId: string, n: number) =>
  `evt_${createHash('sha256').update(`${processId}\u0000${runId}\u0000${n}`).digest('hex').slice(0, 32)}`;

// $1 the events (JSON), $2 process ID, $3 kind. Positions and delivery IDs are taken in the batch's order, so a
// process's events keep their order in both tables.
const RECORD = `
  WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb)
      AS x(event_id text, n integer, state text, previous_state text, reason text, occurred_at timestamptz)
  ), inserted AS (
    INSERT INTO relayflow_events (event_id, process_id, kind, state, previous_state, reason, occurred_at)
    SELECT event_id, $2, $3, state, previous_state, reason, occurred_at FROM input ORDER BY n
    ON CONFLICT (event_id) DO NOTHING
    RETURNING position, state
  )
  INSERT INTO relayflow_event_deliveries (subscription_id, position, process_id, status)
  SELECT s.id, i.position, $2, 'pending'
    FROM inserted i JOIN relayflow_event_subscriptions s
      ON (s.kinds IS NULL OR $3 = ANY (s.kinds)) AND (s.states IS NULL OR i.state = ANY (s.states))
   ORDER BY i.position, s.id`;

export class ProcessEventStore {
  constructor(readonly sql: Sql) {}

  /** Records a batch (reasons already masked); a batch recorded before changes nothing. */
  async record(batch: ProcessEventBatch): Promise<void> {
    const rows = batch.events.map((e) => ({
      event_id: processEventId(batch.processId, batch.runId, e.n),
      n: e.n,
      state: e.state,
      previous_state: e.previousState ?? null,
      reason: e.reason ?? null,
      occurred_at: e.at,
    }));
    await this.sql.query(RECORD, [JSON.stringify(rows), batch.processId, batch.kind]);
  }
}
