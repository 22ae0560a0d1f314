// A campaign's send windows (quiet hours): a row outside its recipient's window waits (`waiting`) and is not
// claimed, since chunks claim only `pending` rows; opening its window makes it pending again. Rows are grouped by
// the recipient's country, filled in once from the number, so a window is decided per country, not per row.
import type { Sql } from './sql.js';

const R = 'relayflow_campaign_recipients';
/** Rows whose country is filled in one statement. */
const FILL_BATCH = 5_000;

export class CampaignWindows {
  constructor(readonly sql: Sql) {}

  /** Fills in the country of every row still to send that has none, by `countryOf` its number; how many it filled. */
  async fillCountries(campaignId: string, countryOf: (recipient: string) => string | undefined): Promise<number> {
    let filled = 0;
    for (;;) {
      const rows = await this.sql.query<{ seq: number; recipient: string }>(
        `SELECT seq, recipient FROM ${R} WHERE campaign_id = $1 AND status IN ('pending', 'waiting') AND country IS NULL ORDER BY seq LIMIT $2`,
        [campaignId, FILL_BATCH],
      );
      if (!rows.length) return filled;
      // '' for a number without one (non-geographic): filled all the same, so it is not read again.
      await this.sql.query(
        `UPDATE ${R} AS r SET country = u.country FROM unnest($2::int[], $3::text[]) AS u(seq, country)
          WHERE r.campaign_id = $1 AND r.seq = u.seq`,
        [campaignId, rows.map((r) => r.seq), rows.map((r) => countryOf(r.recipient) ?? '')],
      );
      filled += rows.length;
    }
  }

  /** The countries of the rows still to send ('' for none). */
  async countries(campaignId: string): Promise<string[]> {
    const rows = await this.sql.query<{ country: string }>(
      `SELECT DISTINCT coalesce(country, '') AS country FROM ${R} WHERE campaign_id = $1 AND status IN ('pending', 'waiting')`,
      [campaignId],
    );
    return rows.map((r) => r.country);
  }

  /**
   * Rows of `open` countries pending, the others waiting (never a row on its way: `sending` and later are left as
   * they are). Answers the chunks (rows of `chunkSize`) that hold pending rows, and how many rows wait.
   */
  async apply(campaignId: string, open: readonly string[], chunkSize: number): Promise<{ chunks: number[]; waiting: number }> {
    await this.sql.query(
      `UPDATE ${R} SET status = CASE WHEN coalesce(country, '') = ANY ($2::text[]) THEN 'pending' ELSE 'waiting' END, updated_at = now()
        WHERE campaign_id = $1 AND status IN ('pending', 'waiting')
          AND status <> CASE WHEN coalesce(country, '') = ANY ($2::text[]) THEN 'pending' ELSE 'waiting' END`,
      [campaignId, [...open]],
    );
    const chunks = await this.sql.query<{ chunk: number }>(
      `SELECT DISTINCT seq / $2::int AS chunk FROM ${R} WHERE campaign_id = $1 AND status = 'pending' ORDER BY 1`,
      [campaignId, chunkSize],
    );
    const [w] = await this.sql.query<{ n: number | string }>(`SELECT count(*) AS n FROM ${R} WHERE campaign_id = $1 AND status = 'waiting'`, [campaignId]);
    return { chunks: chunks.map((c) => Number(c.chunk)), waiting: Number(w?.n ?? 0) };
  }

  /** A cancelled campaign's waiting rows: cancelled, as its pending ones are; how many. */
  async cancelWaiting(campaignId: string): Promise<number> {
    const rows = await this.sql.query(
      `UPDATE ${R} SET status = 'cancelled', updated_at = now()
        WHERE campaign_id = $1 AND status = 'waiting' RETURNING seq`,
      [campaignId],
    );
    return rows.length;
  }
}
