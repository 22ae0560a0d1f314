// The campaign tables. Created at open, under an advisory lock so workers and API instances starting together
// do not race on CREATE TABLE, and only when the database is not current already (migrate, below). Recipients are
// one row each: the send activities claim rows, the delivery intake writes reports, and the counts a caller sees are
// aggregates over them.
import { createHash } from 'node:crypto';
import type { Sql } from './sql.js';

/** Any constant: it only has to be the same in every relayflow process. */
const MIGRATION_LOCK = 727_001;

const STATEMENTS = [
  `CREATE TABLE IF NOT EXISTS relayflow_campaigns (
     id text PRIMARY KEY,
     process_id text NOT NULL UNIQUE,
     kind text NOT NULL,
     request_hash text NOT NULL,
     total integer NOT NULL,
     valid integer NOT NULL,
     invalid integer NOT NULL,
     duplicates integer NOT NULL,
     rate double precision,
     -- paused | cancelled: running send activities stop within a second (they read it with the rate)
     halt text,
     saved_mms_id text,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  // status: pending | sending | sent | failed | invalid | in_doubt | unconfirmed | cancelled | suppressed
  `CREATE TABLE IF NOT EXISTS relayflow_campaign_recipients (
     campaign_id text NOT NULL,
     seq integer NOT NULL,
     recipient text NOT NULL,
     status text NOT NULL,
     attempts integer NOT NULL DEFAULT 0,
     lease_until timestamptz,
     platform_id text,
     reason text,
     delivery text,
     delivery_final boolean,
     delivery_at timestamptz,
     delivery_reason text,
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (campaign_id, seq)
   )`,
  // The send attempt that holds a `sending` row (its claim): only that attempt may record its outcome or release it,
  // so an attempt Temporal has already given up on (a zombie) cannot undo what a newer one settled.
  `ALTER TABLE relayflow_campaign_recipients ADD COLUMN IF NOT EXISTS claim_id text`,
  // The recipient's country (ISO alpha-2, '' for none), filled in when a campaign with quiet hours first needs it
  // (store/campaign-windows.ts): a row outside its window is `waiting`.
  `ALTER TABLE relayflow_campaign_recipients ADD COLUMN IF NOT EXISTS country text`,
  // The campaign's shared send schedule (store/campaign-store.ts reserveSends): where its last reserved send slot ends,
  // in ms since the epoch on the database's clock.
  `ALTER TABLE relayflow_campaigns ADD COLUMN IF NOT EXISTS pace_at double precision`,
  // What the campaign's rate is a share of (the conversation app, the MMS account) and that budget's rate: campaigns
  // sending on one app at once share its rate (store/campaign-store.ts reserveSends).
  `ALTER TABLE relayflow_campaigns ADD COLUMN IF NOT EXISTS pace_key text`,
  `ALTER TABLE relayflow_campaigns ADD COLUMN IF NOT EXISTS platform_rate double precision`,
  `CREATE INDEX IF NOT EXISTS relayflow_campaigns_pace ON relayflow_campaigns (pace_key, pace_at) WHERE pace_key IS NOT NULL`,
  // The customer whose campaign it is (a tenant key's): an app's rate is shared by customers first, then by each
  // customer's campaigns (store/campaign-store.ts reserveSends).
  `ALTER TABLE relayflow_campaigns ADD COLUMN IF NOT EXISTS tenant text`,
  `CREATE INDEX IF NOT EXISTS relayflow_campaign_recipients_status ON relayflow_campaign_recipients (campaign_id, status, seq)`,
  `CREATE TABLE IF NOT EXISTS relayflow_delivery_reports (
     event_key text PRIMARY KEY,
     campaign_id text NOT NULL,
     seq integer NOT NULL,
     status text NOT NULL,
     final boolean NOT NULL,
     platform_id text,
     reason text,
     event_time timestamptz NOT NULL,
     received_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_delivery_reports_recipient ON relayflow_delivery_reports (campaign_id, seq)`,
  // The platform's callbacks seen by any API instance, by intake and event ID (store/seen-callbacks.ts): claimed before
  // the hand-off to the process, handed_at once it is there; swept a day after the claim.
  `CREATE TABLE IF NOT EXISTS relayflow_seen_callbacks (
     intake text NOT NULL,
     event_id text NOT NULL,
     claimed_at timestamptz NOT NULL DEFAULT now(),
     handed_at timestamptz,
     PRIMARY KEY (intake, event_id)
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_seen_callbacks_claimed ON relayflow_seen_callbacks (claimed_at)`,
  // Voice (area A): what an incoming call to `number` does (store/voice-rules.ts); number `default` for the rest.
  `CREATE TABLE IF NOT EXISTS relayflow_voice_rules (
     number text PRIMARY KEY,
     script jsonb NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  // Voice calls answered from their plan (store/voice-calls.ts): the plan (the call's process input) once per call,
  // and every event with the answer given, written before the answer goes out; relayed_at is set once the call's
  // process has it (the outbox: rows without it are relayed again).
  `CREATE TABLE IF NOT EXISTS relayflow_voice_calls (
     call_id text PRIMARY KEY,
     process_id text NOT NULL,
     input jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE IF NOT EXISTS relayflow_voice_events (
     call_id text NOT NULL,
     seq integer NOT NULL,
     delivery text NOT NULL,
     item jsonb NOT NULL,
     answer jsonb,
     created_at timestamptz NOT NULL DEFAULT now(),
     relayed_at timestamptz,
     PRIMARY KEY (call_id, seq),
     UNIQUE (call_id, delivery)
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_voice_events_unrelayed ON relayflow_voice_events (created_at) WHERE relayed_at IS NULL`,
  // A recipient's values for the message's placeholders ({"name": "Ana"}): personal data, kept here only, never in a
  // process's input or history; read with the row when it is claimed for sending.
  `ALTER TABLE relayflow_campaign_recipients ADD COLUMN IF NOT EXISTS params jsonb`,
  // Which process follows a platform resource (store/resource-links.ts): the callback intakes signal it directly.
  // Every link, and every link again, takes a new generation from the sequence, never one a dropped link had.
  `CREATE SEQUENCE IF NOT EXISTS relayflow_resource_link_generations`,
  `CREATE TABLE IF NOT EXISTS relayflow_resource_links (
     resource text NOT NULL,
     process_id text NOT NULL,
     generation bigint NOT NULL DEFAULT nextval('relayflow_resource_link_generations'),
     linked_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (resource, process_id)
   )`,
  // Verification admissions (store/verification-admissions.ts): a row per per-number guard (`number:<subject hash>`) and
  // rate-limit bucket (`rate:<limit>:<keyed hash of the value>`), its admissions [{p, at, m?}] of the window, times in
  // epoch ms; a row with no admission in its keep time is swept.
  `CREATE TABLE IF NOT EXISTS relayflow_verification_admissions (
     key text PRIMARY KEY,
     entries jsonb NOT NULL,
     keep_until double precision NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_verification_admissions_keep ON relayflow_verification_admissions (keep_until)`,
  // The SMS-pumping guard of each destination prefix (store/verification-pumping.ts): its slots [{at, starts, successes}],
  // its block {since, until, starts, successes} while blocked, its last start, success or lift (epoch ms); and its
  // decisions, kept 30 days.
  `CREATE TABLE IF NOT EXISTS relayflow_pumping_guards (
     prefix text PRIMARY KEY,
     slots jsonb NOT NULL,
     blocked jsonb,
     active_at double precision NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS relayflow_pumping_decisions (
     id bigserial PRIMARY KEY,
     prefix text NOT NULL,
     at timestamptz NOT NULL,
     kind text NOT NULL,
     starts integer NOT NULL,
     successes integer NOT NULL,
     by_key text,
     note text
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_pumping_decisions_prefix ON relayflow_pumping_decisions (prefix, id)`,
  `CREATE INDEX IF NOT EXISTS relayflow_pumping_decisions_at ON relayflow_pumping_decisions (at)`,
  // The verification geo rules set through the API (store/verification-geo-rules.ts): one versioned row, and every
  // change appended (the audit: what a change replaced is the row of the version before it).
  `CREATE TABLE IF NOT EXISTS relayflow_geo_rules (
     id smallint PRIMARY KEY CHECK (id = 1),
     rules jsonb NOT NULL,
     default_action text,
     version integer NOT NULL,
     updated_at timestamptz,
     updated_by text
   )`,
  `INSERT INTO relayflow_geo_rules (id, rules, version) VALUES (1, '[]'::jsonb, 0) ON CONFLICT (id) DO NOTHING`,
  `CREATE TABLE IF NOT EXISTS relayflow_geo_rule_changes (
     version integer PRIMARY KEY,
     rules jsonb NOT NULL,
     default_action text,
     changed_at timestamptz NOT NULL,
     changed_by text
   )`,
  // Successful SMS receipts of relayflow's own verifications (store/verification-receipts.ts), until the next message
  // the process gets carries them (handed_at; claimed_until while a message carrying them is on its way); no number in
  // them. Times in epoch ms; swept a day after they came.
  `CREATE TABLE IF NOT EXISTS relayflow_sms_receipts (
     event_id text PRIMARY KEY,
     process_id text NOT NULL,
     verification_id text NOT NULL,
     sms_result text NOT NULL,
     received_at double precision NOT NULL,
     claimed_until double precision,
     handed_at double precision
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_sms_receipts_process ON relayflow_sms_receipts (process_id) WHERE handed_at IS NULL`,
  `CREATE INDEX IF NOT EXISTS relayflow_sms_receipts_received ON relayflow_sms_receipts (received_at)`,
  // Event subscriptions (store/event-subscriptions.ts): where processes' events go, signed with `secrets`
  // ([{secret, expiresAt?}], newest first: a rotated-out secret signs too until it expires).
  `CREATE TABLE IF NOT EXISTS relayflow_event_subscriptions (
     id text PRIMARY KEY,
     url text NOT NULL,
     kinds text[],
     states text[],
     description text,
     secrets jsonb NOT NULL,
     status text NOT NULL,
     disabled_reason text,
     failing_since timestamptz,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  // The event outbox (store/process-events.ts): every process state change, in the order its process made them
  // (position: event n of a run is written only after n - 1), once per event ID, by the process's local activity.
  `CREATE TABLE IF NOT EXISTS relayflow_events (
     position bigserial PRIMARY KEY,
     event_id text NOT NULL UNIQUE,
     process_id text NOT NULL,
     run_id text NOT NULL,
     n integer NOT NULL,
     kind text NOT NULL,
     state text NOT NULL,
     previous_state text,
     reason text,
     occurred_at timestamptz NOT NULL,
     recorded_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_events_occurred ON relayflow_events (occurred_at)`,
  `CREATE INDEX IF NOT EXISTS relayflow_events_run ON relayflow_events (run_id, n)`,
  // One row per event and subscription (a replay adds more): pending until the receiver answers 2xx; delivered in
  // id order per subscription and process. `lease_until` marks an attempt on its way, so workers share the work.
  `CREATE TABLE IF NOT EXISTS relayflow_event_deliveries (
     id bigserial PRIMARY KEY,
     subscription_id text NOT NULL,
     position bigint NOT NULL,
     process_id text NOT NULL,
     status text NOT NULL,
     attempts integer NOT NULL DEFAULT 0,
     next_attempt_at timestamptz NOT NULL DEFAULT now(),
     lease_until timestamptz,
     created_at timestamptz NOT NULL DEFAULT now(),
     delivered_at timestamptz
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_event_deliveries_due ON relayflow_event_deliveries (next_attempt_at) WHERE status = 'pending'`,
  `CREATE INDEX IF NOT EXISTS relayflow_event_deliveries_order ON relayflow_event_deliveries (subscription_id, process_id, id) WHERE status = 'pending'`,
  // Every attempt: the delivery log the API shows.
  `CREATE TABLE IF NOT EXISTS relayflow_event_attempts (
     delivery_id bigint NOT NULL,
     attempt integer NOT NULL,
     subscription_id text NOT NULL,
     event_id text NOT NULL,
     at timestamptz NOT NULL DEFAULT now(),
     status_code integer,
     latency_ms integer NOT NULL,
     error text,
     PRIMARY KEY (delivery_id, attempt)
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_event_attempts_subscription ON relayflow_event_attempts (subscription_id, at)`,
  // The customer of an event's process (its RelayflowTenant) and the one customer a subscription is for; NULL: none
  // (an event of no customer; a subscription of every customer). A customer's subscription gets its events only.
  `ALTER TABLE relayflow_events ADD COLUMN IF NOT EXISTS tenant text`,
  `ALTER TABLE relayflow_event_subscriptions ADD COLUMN IF NOT EXISTS tenant text`,
  // The audit archive (store/audit-archive.ts): one row per closed run, written once, chained per process by hash;
  // summary and timeline sealed with the payload codec. `seq` orders the list and the export.
  `CREATE TABLE IF NOT EXISTS relayflow_audit_archive (
     seq bigserial PRIMARY KEY,
     process_id text NOT NULL,
     n integer NOT NULL,
     run_id text NOT NULL UNIQUE,
     first_run_id text NOT NULL,
     kind text NOT NULL,
     state text NOT NULL,
     execution_status text NOT NULL,
     started_at timestamptz NOT NULL,
     closed_at timestamptz NOT NULL,
     business_key text NOT NULL,
     summary bytea NOT NULL,
     timeline bytea NOT NULL,
     prev_hash text NOT NULL,
     hash text NOT NULL,
     archived_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (process_id, n)
   )`,
  `CREATE INDEX IF NOT EXISTS relayflow_audit_archive_closed ON relayflow_audit_archive (closed_at, seq)`,
  // The customer of an archived run (its RelayflowTenant search attribute); NULL for a run of no customer and for runs
  // archived before it was kept. A tenant key's list and export read its own customer's rows only.
  `ALTER TABLE relayflow_audit_archive ADD COLUMN IF NOT EXISTS tenant text`,
  `CREATE INDEX IF NOT EXISTS relayflow_audit_archive_tenant ON relayflow_audit_archive (tenant, closed_at, seq) WHERE tenant IS NOT NULL`,
  // Suppression lists (store/suppressions.ts): per app, a number that opted out (or in: suppressed false, kept so an
  // older repeat cannot undo it). Found by a keyed hash of the number, kept sealed for reading back; `changed_at` is
  // the time of the reply or request that decided the row's state.
  `CREATE TABLE IF NOT EXISTS relayflow_suppressions (
     app_id text NOT NULL,
     number_hash text NOT NULL,
     number_sealed text NOT NULL,
     suppressed boolean NOT NULL,
     source text NOT NULL,
     changed_at timestamptz NOT NULL,
     PRIMARY KEY (app_id, number_hash)
   )`,
  // How far the archiver has read Temporal's closed runs (by close time).
  `CREATE TABLE IF NOT EXISTS relayflow_audit_cursor (name text PRIMARY KEY, close_time timestamptz NOT NULL)`,
];

/** The statements' own fingerprint: a database that holds it has every table, column and index above. */
const SCHEMA_VERSION = createHash('sha256').update(STATEMENTS.join('\n')).digest('hex').slice(0, 16);
const VERSION_TABLE = 'CREATE TABLE IF NOT EXISTS relayflow_schema_version (version text PRIMARY KEY)';
/** Deadlock and lock timeout: a migration that met live traffic is tried again. */
const RETRIED = new Set(['40P01', '55P03']);
const ATTEMPTS = 5;

/**
 * Brings the tables up to date. A database that already is (every start but the first after an upgrade) is left
 * alone: even `ADD COLUMN IF NOT EXISTS` takes a table's exclusive lock, and taken while another instance writes,
 * the locks of one transaction over many tables can deadlock with that instance's writes. A migration that does run
 * waits at most a few seconds for each lock, and is tried again if it meets traffic.
 */
export async function migrate(sql: Sql): Promise<void> {
  if (await isCurrent(sql)) return;
  for (let attempt = 1; ; attempt++) {
    try {
      await sql.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        await tx.query(`SET LOCAL lock_timeout = '5s'`);
        for (const s of STATEMENTS) await tx.query(s);
        await tx.query(VERSION_TABLE);
        await tx.query('DELETE FROM relayflow_schema_version');
        await tx.query('INSERT INTO relayflow_schema_version (version) VALUES ($1)', [SCHEMA_VERSION]);
      });
      return;
    } catch (err) {
      if (attempt >= ATTEMPTS || !RETRIED.has((err as { code?: string }).code ?? '')) throw err;
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
}

async function isCurrent(sql: Sql): Promise<boolean> {
  try {
    const rows = await sql.query<{ version: string }>('SELECT version FROM relayflow_schema_version');
    return rows.some((r) => r.version === SCHEMA_VERSION);
  } catch {
    return false; // no version table yet: a database from before it, or a new one
  }
}
