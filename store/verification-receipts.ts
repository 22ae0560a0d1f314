// The Successful SMS delivery receipts of relayflow's own verifications, kept until a message their process gets anyway
// carries them (a report, resend or cancel from the API, the platform's result callback): a receipt only needs
// recording, and a signal of its own would cost the process an action and a workflow task. A row holds the event ID,
// the process and platform verification IDs, the result and when it came: never the number.
import type { SmsReceipt } from '../contracts/verification-receipts.js';
import { seenCte } from './seen-callbacks.js';
import type { Sql } from './sql.js';

interface Row {
  event_id: string;
  verification_id: string;
  sms_result: 'Successful' | 'Failed';
  received_at: number;
}

const toReceipt = (r: Row): SmsReceipt => ({
  eventId: r.event_id,
  verificationId: r.verification_id,
  smsResult: r.sms_result,
  receivedAt: new Date(Number(r.received_at)).toISOString(),
});

/** The intake whose receipts these are (api/callbacks/verification.ts), under which their event IDs are claimed. */
const VERIFICATION_INTAKE = 'verification';

/** How long a receipt is kept: a step waits at most a day after its send, so its receipt is of no use later. */
const SMS_RECEIPT_KEEP_MS = 24 * 60 * 60_000;

export class SmsReceiptStore {
  constructor(
    readonly sql: Sql,
    /** Epoch ms: the API instance's clock. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records a receipt once: false when its event ID was seen before (the platform's retry, at any API instance). The
   * insert carries the verification intake's claim of the event ID (store/seen-callbacks.ts): one statement, one
   * place where repeats are found; a repeat past that table's day finds the receipt's own key.
   */
  async record(processId: string, r: Pick<SmsReceipt, 'eventId' | 'verificationId' | 'smsResult'>): Promise<boolean> {
    const rows = await this.sql.query(
      `WITH ${seenCte(6, 1)}
       INSERT INTO relayflow_sms_receipts (event_id, process_id, verification_id, sms_result, received_at)
       SELECT $1::text, $2::text, $3::text, $4::text, $5::float8 FROM seen ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [r.eventId, processId, r.verificationId, r.smsResult, this.now(), VERIFICATION_INTAKE],
    );
    return rows.length === 1;
  }

  /** The process's receipts it has not been handed yet, oldest first, whether or not a message is carrying them now. */
  async pending(processId: string): Promise<SmsReceipt[]> {
    const rows = await this.sql.query<Row>(
      `SELECT event_id, verification_id, sms_result, received_at FROM relayflow_sms_receipts
       WHERE process_id = $1 AND handed_at IS NULL ORDER BY received_at, event_id`,
      [processId],
    );
    return rows.map(toReceipt);
  }

  /**
   * Takes the process's pending receipts for one message to carry, for `leaseMs`: a message sent meanwhile (the
   * platform's result right after a report) does not carry them too. Then `handed` once the process took the message,
   * else `release`; a lease that runs out (an API instance died) lets a later message carry them.
   */
  async claim(processId: string, leaseMs: number): Promise<SmsReceipt[]> {
    const now = this.now();
    const rows = await this.sql.query<Row>(
      `UPDATE relayflow_sms_receipts SET claimed_until = $2::float8 + $3::float8
       WHERE process_id = $1 AND handed_at IS NULL AND (claimed_until IS NULL OR claimed_until <= $2::float8)
       RETURNING event_id, verification_id, sms_result, received_at`,
      [processId, now, leaseMs],
    );
    return rows.map(toReceipt).sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.eventId.localeCompare(b.eventId));
  }

  /** The process took a message carrying these receipts: they are not carried again. */
  async handed(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.sql.query('UPDATE relayflow_sms_receipts SET handed_at = $2::float8 WHERE event_id = ANY($1::text[]) AND handed_at IS NULL', [
      eventIds,
      this.now(),
    ]);
  }

  /** The message carrying these receipts did not reach the process: the next one carries them. */
  async release(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.sql.query('UPDATE relayflow_sms_receipts SET claimed_until = NULL WHERE event_id = ANY($1::text[]) AND handed_at IS NULL', [eventIds]);
  }

  /** Drops the receipts older than `keepMs` (their process has ended, or no longer needs them); how many. */
  async sweep(keepMs = SMS_RECEIPT_KEEP_MS): Promise<number> {
    const rows = await this.sql.query('DELETE FROM relayflow_sms_receipts WHERE received_at < $1::float8 RETURNING event_id', [this.now() - keepMs]);
    return rows.length;
  }
}
