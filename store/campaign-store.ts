// The durable record of a campaign: its recipients, what happened to each, and the delivery reports. It is
// what makes "at most once" hold: a recipient is sent only after its row moved pending -> sending in one
// UPDATE (two workers can never both win it), and a row left in `sending` by a crash is settled by asking
// the platform, never by sending blindly again.
import { seenCte } from './seen-callbacks.js';
import type { Sql, SqlRunner } from './sql.js';

/** suppressed: on the app's suppression list when its row was claimed (store/suppressions.ts): never sent. */
export type RecipientStatus = 'pending' | 'waiting' | 'sending' | 'sent' | 'failed' | 'invalid' | 'in_doubt' | 'unconfirmed' | 'cancelled' | 'suppressed';
const RECIPIENT_STATUSES: readonly RecipientStatus[] = [
  'pending',
  'waiting',
  'sending',
  'sent',
  'failed',
  'invalid',
  'in_doubt',
  'unconfirmed',
  'cancelled',
  'suppressed',
];

export interface NewRecipient {
  seq: number;
  /** E.164 when valid; the input as given when not. */
  recipient: string;
  status: 'pending' | 'invalid';
  reason?: string;
  /** Values for the message's placeholders (personal data: stored here only). */
  params?: Record<string, string>;
}

export interface NewCampaign {
  /** Short (a ULID): it travels in every message's metadata as `rf:<id>:<seq>`. */
  id: string;
  /** The campaign's process (workflow) ID: one campaign per process ID, whatever is sent again. */
  processId: string;
  kind: string;
  /** Identifies the request: the same ID with another hash is a different campaign. */
  requestHash: string;
  recipients: NewRecipient[];
  total: number;
  duplicates: number;
  rate?: number;
  /** The customer it is sent for (the tenant key's that started it): it shares an app's rate as that customer's. */
  tenant?: string;
}

export interface CampaignRow {
  id: string;
  processId: string;
  kind: string;
  requestHash: string;
  total: number;
  valid: number;
  invalid: number;
  duplicates: number;
  rate: number | null;
  savedMmsId: string | null;
  createdAt: string;
}

/** Send slots of a campaign's shared schedule (CampaignStore.reserveSends). */
export interface SendReservation {
  /** Slots reserved: 0 when the campaign is halted. */
  slots: number;
  /** When the first slot starts, in ms from the answer (negative: already due); slot i starts i * slotMs later. */
  startInMs: number;
  slotMs: number;
  /** Where the schedule ended after this reservation (the database's ms), to give back its tail. */
  endsAt: number;
  rate?: number;
  halt?: 'paused' | 'cancelled';
}

export interface ClaimedRecipient {
  seq: number;
  recipient: string;
  /** Its values for the message's placeholders, when it has any (claim() reads them; a look-up does not need them). */
  params?: Record<string, string> | null;
}

export interface SendResult {
  seq: number;
  /** pending: definitely not accepted, send again; in_doubt: the answer was lost. */
  status: 'sent' | 'failed' | 'pending' | 'in_doubt' | 'unconfirmed';
  platformId?: string;
  reason?: string;
}

export interface DeliveryReport {
  campaignId: string;
  seq: number;
  /** The intake it came through (conversation, mms) and its event ID there: a redelivery repeats them and is dropped. */
  intake: string;
  eventId: string;
  status: string;
  final: boolean;
  platformId?: string;
  reason?: string;
  eventTime: string;
}

export interface CampaignCounts {
  total: number;
  duplicates: number;
  byStatus: Record<RecipientStatus, number>;
  /** Latest delivery report per recipient, by status (delivered, failed, queued, ...). */
  delivery: Record<string, number>;
  /** Reasons of failed and invalid recipients and failed deliveries, with counts (at most 20). */
  reasons: { reason: string; count: number }[];
}

export interface RecipientOutcome {
  seq: number;
  recipient: string;
  status: RecipientStatus;
  attempts: number;
  platformId: string | null;
  reason: string | null;
  delivery: string | null;
  deliveryReason: string | null;
  updatedAt: string;
}

const INSERT_BATCH = 5_000;
const R = 'relayflow_campaign_recipients';

/** A campaign shares its app's rate with the others whose schedule reached this close to now (they are sending). */
const SHARING_MS = 2_000;

/**
 * A reservation of $2 slots for campaign $1 at its share $3 of its rate, catching up at most $4 ms. The rate is the
 * one asked for, capped at its fair part of the app's among the campaigns sending on it ($5: reserved within that many
 * ms): the app's rate split equally among the customers sending, each customer's part equally among its campaigns
 * (campaigns of no customer are one customer); what campaigns asking less than their part leave is split among those
 * asking more. So two customers on one app each get half of it however many campaigns either runs, and one asking
 * little leaves the rest to the others.
 */
const RESERVE = `
  WITH c AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::double precision AS now_ms),
  me AS (SELECT id, pace_key, platform_rate, rate, COALESCE(tenant, '') AS tenant FROM relayflow_campaigns WHERE id = $1),
  others AS (
    SELECT p.rate, COALESCE(p.tenant, '') AS tenant FROM relayflow_campaigns p, me, c
     WHERE me.pace_key IS NOT NULL AND p.pace_key = me.pace_key AND p.id <> me.id AND p.halt IS NULL AND p.pace_at > c.now_ms - $5::double precision
  ),
  sending AS (SELECT rate, tenant, false AS mine FROM others UNION ALL SELECT rate, tenant, true FROM me),
  per AS (SELECT tenant, count(*)::double precision AS m FROM sending GROUP BY tenant),
  -- A campaign's fair share: the app's rate over the customers sending on it, over that customer's campaigns sending.
  shares AS (
    SELECT s.mine, COALESCE(s.rate, me.platform_rate) AS wants, me.platform_rate / (SELECT count(*) FROM per) / per.m AS fair
      FROM sending s JOIN per ON per.tenant = s.tenant, me
  ),
  -- What the ones asking less than their share leave is split among those asking more.
  fair AS (
    SELECT CASE WHEN me.pace_key IS NULL OR me.platform_rate IS NULL OR NOT EXISTS (SELECT 1 FROM others) THEN NULL
                ELSE (SELECT fair FROM shares WHERE mine)
                   + CASE WHEN (SELECT wants > fair FROM shares WHERE mine)
                          THEN GREATEST(0, me.platform_rate - (SELECT sum(LEAST(wants, fair)) FROM shares)) / (SELECT count(*) FROM shares WHERE wants > fair)
                          ELSE 0 END END AS rate
      FROM me
  )
  UPDATE relayflow_campaigns AS x SET pace_at = CASE WHEN x.halt IS NULL
      THEN GREATEST(COALESCE(x.pace_at, 0), c.now_ms - $4::double precision)
           + $2::double precision * 1000 / (LEAST(COALESCE(x.rate, 1), COALESCE(fair.rate, 'Infinity'::double precision)) * $3::double precision)
      ELSE x.pace_at END
    FROM c, fair WHERE x.id = $1
  RETURNING CASE WHEN x.rate IS NULL THEN NULL ELSE LEAST(x.rate, COALESCE(fair.rate, 'Infinity'::double precision)) END AS rate, x.halt, x.pace_at, c.now_ms`;

export class CampaignStore {
  constructor(readonly sql: Sql) {}

  /** Stores the campaign and its recipients once; the same process ID again returns the stored campaign (created: false). */
  async createCampaign(c: NewCampaign): Promise<{ created: boolean; campaign: CampaignRow }> {
    const valid = c.recipients.filter((r) => r.status === 'pending').length;
    const result = await this.sql.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO relayflow_campaigns (id, process_id, kind, request_hash, total, valid, invalid, duplicates, rate, tenant)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (process_id) DO NOTHING RETURNING id`,
        [c.id, c.processId, c.kind, c.requestHash, c.total, valid, c.recipients.length - valid, c.duplicates, c.rate ?? null, c.tenant ?? null],
      );
      if (inserted.length) {
        for (let i = 0; i < c.recipients.length; i += INSERT_BATCH) await insertRecipients(tx, c.id, c.recipients.slice(i, i + INSERT_BATCH));
      }
      const campaign = await getCampaign(tx, c.processId, 'process_id');
      return { created: inserted.length > 0, campaign: campaign! };
    });
    // Fresh statistics after a bulk insert: without them the planner scans whole campaigns for each claim.
    if (result.created) await this.sql.query(`ANALYZE ${R}`);
    return result;
  }

  getCampaign(id: string): Promise<CampaignRow | undefined> {
    return getCampaign(this.sql, id, 'id');
  }

  getCampaignOfProcess(processId: string): Promise<CampaignRow | undefined> {
    return getCampaign(this.sql, processId, 'process_id');
  }

  async setRate(id: string, rate: number): Promise<void> {
    await this.sql.query('UPDATE relayflow_campaigns SET rate = $2 WHERE id = $1', [id, rate]);
  }

  /** The rate asked for, and the budget it shares with the other campaigns on `paceKey` (an app, an MMS account). */
  async setPacing(id: string, p: { rate: number; paceKey: string; platformRate: number }): Promise<void> {
    await this.sql.query('UPDATE relayflow_campaigns SET rate = $2, pace_key = $3, platform_rate = $4 WHERE id = $1', [id, p.rate, p.paceKey, p.platformRate]);
  }

  async getRate(id: string): Promise<number | undefined> {
    return (await this.sendControl(id)).rate;
  }

  /** Stops (paused, cancelled) or lets go (null) the campaign's running send activities. */
  async setHalt(id: string, halt: 'paused' | 'cancelled' | null): Promise<void> {
    await this.sql.query('UPDATE relayflow_campaigns SET halt = $2 WHERE id = $1', [id, halt]);
  }

  /** What a running send activity reads every second: the pace, and whether to stop. */
  async sendControl(id: string): Promise<{ rate?: number; halt?: 'paused' | 'cancelled' }> {
    const [row] = await this.sql.query<{ rate: number | null; halt: 'paused' | 'cancelled' | null }>(
      'SELECT rate, halt FROM relayflow_campaigns WHERE id = $1',
      [id],
    );
    return { ...(row?.rate != null ? { rate: row.rate } : {}), ...(row?.halt ? { halt: row.halt } : {}) };
  }

  /**
   * The campaign's one send schedule, shared by its chunks on every worker (a token bucket kept as the time its
   * last reserved slot ends, `pace_at`, in the database's clock). Reserves `n` consecutive send slots spanning
   * `n / (rate * share)` seconds from where the schedule ends (or from `catchUpMs` ago when it ended earlier: the
   * time an idle schedule may make up at once), and answers when the first one starts, relative to the database's
   * now, so workers' clocks never matter. A halted campaign reserves nothing (`slots` 0).
   */
  async reserveSends(id: string, n: number, share: number, catchUpMs: number): Promise<SendReservation> {
    const [row] = await this.sql.query<{ rate: number | null; halt: 'paused' | 'cancelled' | null; pace_at: number | null; now_ms: number }>(RESERVE, [
      id,
      n,
      share,
      catchUpMs,
      SHARING_MS,
    ]);
    if (!row) return { slots: 0, startInMs: 0, slotMs: 0, endsAt: 0 };
    const rate = row.rate ?? 1;
    const base = { ...(row.rate != null ? { rate: row.rate } : {}), ...(row.halt ? { halt: row.halt } : {}) };
    if (row.halt) return { ...base, slots: 0, startInMs: 0, slotMs: 0, endsAt: row.pace_at ?? 0 };
    const slotMs = 1000 / (rate * share);
    return { ...base, slots: n, slotMs, startInMs: row.pace_at! - n * slotMs - row.now_ms, endsAt: row.pace_at! };
  }

  /** Gives back the last `slots` of a reservation nobody reserved after (rows ran out): the schedule ends earlier. */
  async returnSends(id: string, r: SendReservation, slots: number): Promise<void> {
    if (slots <= 0 || !r.slots) return;
    await this.sql.query('UPDATE relayflow_campaigns SET pace_at = pace_at - $2::double precision WHERE id = $1 AND pace_at = $3::double precision', [
      id,
      slots * r.slotMs,
      r.endsAt,
    ]);
  }

  /** Nothing of the campaign is sent before `ms` from now (a 429's Retry-After): every chunk's next slots start after it. */
  async holdSends(id: string, ms: number): Promise<void> {
    await this.sql.query(
      `UPDATE relayflow_campaigns SET pace_at = GREATEST(COALESCE(pace_at, 0), (extract(epoch FROM clock_timestamp()) * 1000)::double precision + $2::double precision)
       WHERE id = $1`,
      [id, ms],
    );
  }

  /** Keeps the first saved template's ID: a second save (a retried activity) uses the first one. */
  async rememberSavedMms(id: string, mmsId: string): Promise<string> {
    const [row] = await this.sql.query<{ saved_mms_id: string }>(
      `UPDATE relayflow_campaigns SET saved_mms_id = COALESCE(saved_mms_id, $2) WHERE id = $1 RETURNING saved_mms_id`,
      [id, mmsId],
    );
    return row?.saved_mms_id ?? mmsId;
  }

  /** The highest seq + 1 (the campaign's recipient range is [0, end)). */
  async end(id: string): Promise<number> {
    const [row] = await this.sql.query<{ n: number | null }>(`SELECT max(seq) + 1 AS n FROM ${R} WHERE campaign_id = $1`, [id]);
    return row?.n ?? 0;
  }

  /**
   * Moves up to `limit` pending recipients of [from, to) to `sending` with a lease, in seq order, and returns
   * them: only rows this call moved are returned, so no two senders ever get the same recipient. `claimId`
   * names the sender (one send attempt): record() and release() of another sender leave the rows alone. A halted
   * (paused, cancelled) campaign's rows are not claimed, so a chunk stops within the block it is sending.
   */
  claim(id: string, from: number, to: number, limit: number, leaseMs: number, claimId: string): Promise<ClaimedRecipient[]> {
    // A CTE runs its SELECT once; an `IN (subquery ... SKIP LOCKED)` may be re-run per row and take more than `limit`.
    return this.sql
      .query<ClaimedRecipient>(
        `WITH picked AS (
         SELECT seq FROM ${R} WHERE campaign_id = $1 AND seq >= $2 AND seq < $3 AND status = 'pending'
           AND NOT EXISTS (SELECT 1 FROM relayflow_campaigns WHERE id = $1 AND halt IS NOT NULL)
         ORDER BY seq LIMIT $4 FOR UPDATE SKIP LOCKED)
       UPDATE ${R} AS r SET status = 'sending', attempts = attempts + 1, lease_until = now() + $5 * interval '1 millisecond',
         claim_id = $6, updated_at = now()
       FROM picked WHERE r.campaign_id = $1 AND r.seq = picked.seq AND r.status = 'pending'
       RETURNING r.seq, r.recipient, r.params`,
        [id, from, to, limit, leaseMs, claimId],
      )
      .then((rows) => rows.sort((a, b) => a.seq - b.seq));
  }

  /**
   * Records send outcomes of rows still `sending` or `in_doubt` (a delivery report may have settled them first).
   * With `claimId`, only rows that claim still holds (a sender's own answers); without, rows another sender
   * left whose lease has ended (settling: a row claimed anew since has a running lease and is left alone). An `in_doubt` row is leased for `inDoubtLeaseMs`: the time its request may still take to
   * reach the platform, before which a look-up's "not there" proves nothing.
   */
  async record(id: string, results: readonly SendResult[], opts: { claimId?: string; inDoubtLeaseMs?: number } = {}): Promise<void> {
    if (!results.length) return;
    await this.sql.query(
      `UPDATE ${R} AS r SET status = v.status, platform_id = COALESCE(v.platform_id, r.platform_id), reason = v.reason,
         lease_until = CASE WHEN v.status = 'in_doubt' THEN now() + $7 * interval '1 millisecond' END, claim_id = NULL, updated_at = now()
       FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS v(seq, status, platform_id, reason)
       WHERE r.campaign_id = $1 AND r.seq = v.seq AND r.status IN ('sending', 'in_doubt')
         AND ($6::text IS NULL AND (r.lease_until IS NULL OR r.lease_until <= now()) OR r.claim_id = $6)`,
      [
        id,
        results.map((r) => r.seq),
        results.map((r) => r.status),
        results.map((r) => r.platformId ?? null),
        results.map((r) => r.reason ?? null),
        opts.claimId ?? null,
        opts.inDoubtLeaseMs ?? 0,
      ],
    );
  }

  /** Claimed rows this sender never sent: back to pending, the claim not counted as an attempt. */
  async release(id: string, seqs: readonly number[], claimId: string): Promise<void> {
    if (!seqs.length) return;
    await this.sql.query(
      `UPDATE ${R} SET status = 'pending', attempts = attempts - 1, lease_until = NULL, claim_id = NULL, updated_at = now()
       WHERE campaign_id = $1 AND seq = ANY($2::int[]) AND status = 'sending' AND claim_id = $3`,
      [id, seqs, claimId],
    );
  }

  /** Claimed rows whose number is suppressed: never sent, the claim not counted as an attempt. */
  async suppress(id: string, seqs: readonly number[], claimId: string, reason: string): Promise<void> {
    if (!seqs.length) return;
    await this.sql.query(
      `UPDATE ${R} SET status = 'suppressed', attempts = attempts - 1, reason = $4, lease_until = NULL, claim_id = NULL, updated_at = now()
       WHERE campaign_id = $1 AND seq = ANY($2::int[]) AND status = 'sending' AND claim_id = $3`,
      [id, seqs, claimId, reason],
    );
  }

  /**
   * Rows of [from, to) whose send may or may not have reached the platform, and whose lease has ended:
   * `in_doubt` (the answer was lost, and the request can no longer land), or `sending` (its sender died).
   * `leasedUntil` is the latest lease still running in the range.
   */
  async unsettled(id: string, from: number, to: number): Promise<{ rows: (ClaimedRecipient & { status: RecipientStatus })[]; leasedUntil?: number }> {
    const rows = await this.sql.query<ClaimedRecipient & { status: RecipientStatus }>(
      `SELECT seq, recipient, status FROM ${R}
       WHERE campaign_id = $1 AND seq >= $2 AND seq < $3 AND status IN ('sending', 'in_doubt') AND (lease_until IS NULL OR lease_until <= now())
       ORDER BY seq`,
      [id, from, to],
    );
    const [held] = await this.sql.query<{ until: string | null }>(
      `SELECT max(lease_until) AS until FROM ${R}
       WHERE campaign_id = $1 AND seq >= $2 AND seq < $3 AND status IN ('sending', 'in_doubt') AND lease_until > now()`,
      [id, from, to],
    );
    return { rows, ...(held?.until ? { leasedUntil: new Date(held.until).getTime() } : {}) };
  }

  /** Counts by status in [from, to). */
  async rangeCounts(id: string, from: number, to: number): Promise<Partial<Record<RecipientStatus, number>>> {
    const rows = await this.sql.query<{ status: RecipientStatus; n: number }>(
      `SELECT status, count(*) AS n FROM ${R} WHERE campaign_id = $1 AND seq >= $2 AND seq < $3 GROUP BY status`,
      [id, from, to],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** A cancelled campaign's recipients not yet sent. */
  async cancelPending(id: string): Promise<number> {
    const rows = await this.sql.query(`UPDATE ${R} SET status = 'cancelled', updated_at = now() WHERE campaign_id = $1 AND status = 'pending' RETURNING seq`, [
      id,
    ]);
    return rows.length;
  }

  /** In-doubt sends no postback confirmed in time: reported as unconfirmed, never sent again. */
  async closeInDoubt(id: string, reason: string): Promise<number> {
    const rows = await this.sql.query(
      `UPDATE ${R} SET status = 'unconfirmed', reason = $2, lease_until = NULL, claim_id = NULL, updated_at = now()
       WHERE campaign_id = $1 AND (status = 'in_doubt' OR (status = 'sending' AND lease_until <= now())) RETURNING seq`,
      [id, reason],
    );
    return rows.length;
  }

  /**
   * Keeps a delivery report once and folds it into the recipient: a final status beats a non-final one, a newer
   * event beats an older one of the same kind. A report also proves the platform accepted the message, which
   * settles a send whose answer was lost. The report's insert carries the intake's claim of its event ID
   * (store/seen-callbacks.ts), so a repeat at any API instance is found there, in the same statement; a repeat
   * past that table's day finds the report's own key.
   */
  recordReport(r: DeliveryReport): Promise<{ duplicate: boolean; known: boolean }> {
    return this.sql.transaction(async (tx) => {
      const known = await tx.query(`SELECT 1 FROM ${R} WHERE campaign_id = $1 AND seq = $2`, [r.campaignId, r.seq]);
      if (!known.length) return { duplicate: false, known: false };
      const inserted = await tx.query(
        `WITH ${seenCte(9, 10)}
         INSERT INTO relayflow_delivery_reports (event_key, campaign_id, seq, status, final, platform_id, reason, event_time)
         SELECT $1::text, $2::text, $3::int, $4::text, $5::boolean, $6::text, $7::text, $8::timestamptz FROM seen ON CONFLICT (event_key) DO NOTHING RETURNING event_key`,
        [`${r.intake}|${r.eventId}`, r.campaignId, r.seq, r.status, r.final, r.platformId ?? null, r.reason ?? null, r.eventTime, r.intake, r.eventId],
      );
      if (!inserted.length) return { duplicate: true, known: true };
      await tx.query(
        `UPDATE ${R} SET delivery = $3, delivery_final = $4, delivery_at = $5, delivery_reason = $6, updated_at = now()
         WHERE campaign_id = $1 AND seq = $2 AND (
           delivery IS NULL
           OR (NOT delivery_final AND ($4 OR delivery_at <= $5))
           OR (delivery_final AND $4 AND delivery_at < $5))`,
        [r.campaignId, r.seq, r.status, r.final, r.eventTime, r.reason ?? null],
      );
      await tx.query(
        `UPDATE ${R} SET status = 'sent', platform_id = COALESCE(platform_id, $3), reason = NULL, lease_until = NULL, claim_id = NULL, updated_at = now()
         WHERE campaign_id = $1 AND seq = $2 AND status IN ('sending', 'in_doubt', 'unconfirmed')`,
        [r.campaignId, r.seq, r.platformId ?? null],
      );
      return { duplicate: false, known: true };
    });
  }

  async counts(id: string): Promise<CampaignCounts | undefined> {
    const campaign = await this.getCampaign(id);
    if (!campaign) return undefined;
    const rows = await this.sql.query<{ status: RecipientStatus; delivery: string | null; n: number }>(
      `SELECT status, delivery, count(*) AS n FROM ${R} WHERE campaign_id = $1 GROUP BY status, delivery`,
      [id],
    );
    const byStatus = Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, 0])) as Record<RecipientStatus, number>;
    const delivery: Record<string, number> = {};
    for (const r of rows) {
      byStatus[r.status] += r.n;
      if (r.delivery) delivery[r.delivery] = (delivery[r.delivery] ?? 0) + r.n;
    }
    const reasons = await this.sql.query<{ reason: string; count: number }>(
      `SELECT COALESCE(delivery_reason, reason) AS reason, count(*) AS count FROM ${R}
       WHERE campaign_id = $1 AND COALESCE(delivery_reason, reason) IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20`,
      [id],
    );
    return { total: campaign.total, duplicates: campaign.duplicates, byStatus, delivery, reasons };
  }

  /** Per-recipient outcomes in seq order, after `afterSeq`, optionally of one status. */
  recipients(id: string, opts: { status?: RecipientStatus; afterSeq?: number; limit: number }): Promise<RecipientOutcome[]> {
    return this.sql.query<RecipientOutcome>(
      `SELECT seq, recipient, status, attempts, platform_id AS "platformId", reason, delivery, delivery_reason AS "deliveryReason",
              to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"
       FROM ${R} WHERE campaign_id = $1 AND seq > $2 AND ($3::text IS NULL OR status = $3) ORDER BY seq LIMIT $4`,
      [id, opts.afterSeq ?? -1, opts.status ?? null, opts.limit],
    );
  }
}

async function insertRecipients(tx: SqlRunner, id: string, rows: NewRecipient[]): Promise<void> {
  await tx.query(
    `INSERT INTO ${R} (campaign_id, seq, recipient, status, reason, params)
     SELECT $1, v.seq, v.recipient, v.status, v.reason, v.params::jsonb
     FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) AS v(seq, recipient, status, reason, params)`,
    [
      id,
      rows.map((r) => r.seq),
      rows.map((r) => r.recipient),
      rows.map((r) => r.status),
      rows.map((r) => r.reason ?? null),
      rows.map((r) => (r.params ? JSON.stringify(r.params) : null)),
    ],
  );
}

async function getCampaign(q: SqlRunner, key: string, by: 'id' | 'process_id'): Promise<CampaignRow | undefined> {
  const [row] = await q.query<CampaignRow>(
    `SELECT id, process_id AS "processId", kind, request_hash AS "requestHash", total, valid, invalid, duplicates, rate, saved_mms_id AS "savedMmsId",
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
     FROM relayflow_campaigns WHERE ${by} = $1`,
    [key],
  );
  return row;
}
