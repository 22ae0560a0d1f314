// The platform's callbacks seen by any API instance, one row per intake and event ID (api/callbacks/intake.ts): the
// one place a repeated delivery is found, whichever instance it reaches. A row is claimed before its event is handed
// to its process and marked handed after; a hand-off that failed removes it, so the platform's retry is taken. A claim
// left by an instance that died mid hand-off is taken again once its lease is over. Rows go after a day: a repeat
// later than that reaches the process, which drops an event ID it has (every signal carries one).
import type { Sql } from './sql.js';

/**
 * new: this delivery hands the event over. repeat: the event was handed over before. in-flight: another delivery
 * of it is being handed over now (the caller answers "retry later", or drops it where the platform never retries).
 */
export type SeenOutcome = 'new' | 'repeat' | 'in-flight';

/** How long a claim holds before another delivery may take it: longer than any hand-off's deadline. */
const SEEN_LEASE_MS = 30_000;
/** How long a row is kept: past every platform's retries (MMS: five, five minutes apart) and every signature window. */
const SEEN_KEEP_MS = 24 * 3_600_000;

// $1 intake, $2 event ID, $3 lease (ms). The INSERT ... ON CONFLICT decides atomically across instances (the
// conflicting row is locked and its latest version judged); the SELECT says why it did not claim. A row committed
// after this statement's snapshot is not seen by the SELECT: no row then, read as in flight (retry later).
const CLAIM = `
  WITH claimed AS (
    INSERT INTO relayflow_seen_callbacks AS s (intake, event_id) VALUES ($1, $2)
    ON CONFLICT (intake, event_id) DO UPDATE SET claimed_at = now()
      WHERE s.handed_at IS NULL AND s.claimed_at < now() - make_interval(secs => $3::double precision / 1000)
    RETURNING 1
  )
  SELECT 'new' AS outcome FROM claimed
  UNION ALL
  SELECT CASE WHEN handed_at IS NULL THEN 'in-flight' ELSE 'repeat' END FROM relayflow_seen_callbacks
   WHERE intake = $1 AND event_id = $2 AND NOT EXISTS (SELECT 1 FROM claimed)`;

/**
 * A common table expression `seen` for a write that is itself the hand-off (a delivery report folded into its campaign,
 * a receipt kept for its process): it records the event as handed and has one row only when the event was not seen
 * before, so the write selects FROM seen and the claim costs no round trip of its own. `intake` and `eventId` are the
 * statement's parameter numbers.
 */
export const seenCte = (intake: number, eventId: number) =>
  `seen AS (
     INSERT INTO relayflow_seen_callbacks (intake, event_id, handed_at) VALUES ($${intake}, $${eventId}, now())
     ON CONFLICT (intake, event_id) DO NOTHING RETURNING event_id
   )`;

export class SeenCallbackStore {
  constructor(readonly sql: Sql) {}

  async claim(intake: string, eventId: string, leaseMs = SEEN_LEASE_MS): Promise<SeenOutcome> {
    const [row] = await this.sql.query<{ outcome: SeenOutcome }>(CLAIM, [intake, eventId, leaseMs]);
    return row?.outcome ?? 'in-flight';
  }

  /** The claimed event reached its process: a repeat is dropped from now on. */
  async handed(intake: string, eventId: string): Promise<void> {
    await this.sql.query('UPDATE relayflow_seen_callbacks SET handed_at = now() WHERE intake = $1 AND event_id = $2', [intake, eventId]);
  }

  /** The claimed event did not reach its process: the next delivery of it claims it again. */
  async release(intake: string, eventId: string): Promise<void> {
    await this.sql.query('DELETE FROM relayflow_seen_callbacks WHERE intake = $1 AND event_id = $2 AND handed_at IS NULL', [intake, eventId]);
  }

  /** Drops rows claimed over `keepMs` ago; how many. */
  async sweep(keepMs = SEEN_KEEP_MS): Promise<number> {
    const rows = await this.sql.query(
      'DELETE FROM relayflow_seen_callbacks WHERE claimed_at < now() - make_interval(secs => $1::double precision / 1000) RETURNING 1',
      [keepMs],
    );
    return rows.length;
  }
}
