// Event subscriptions and their deliveries: what the API configures and the workers' deliverers
// (workers/events/) claim, attempt and settle. A delivery is claimed with a lease, so several workers share
// the work without sending the normal case twice, and only the oldest pending delivery of a process (per
// subscription) is claimable, so a process's events arrive in order. A subscription of one customer (tenant) gets
// only that customer's events, and the methods given a `tenant` (a tenant key's request) find only its subscriptions.
import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import type { Sealer } from '../common/sealed-text.js';
import type { Sql } from './sql.js';

export interface SubscriptionSecret {
  secret: string;
  /** A rotated-out secret signs too until then (ISO time). */
  expiresAt?: string;
}

export interface Subscription {
  id: string;
  url: string;
  /** Absent: every kind. */
  kinds?: string[];
  /** Absent: every state. */
  states?: string[];
  /** The one customer whose events it gets; absent: every customer's. */
  tenant?: string;
  description?: string;
  status: 'active' | 'disabled';
  disabledReason?: string;
  /** Since when its deliveries have been failing (absent while they succeed). */
  failingSince?: string;
  createdAt: string;
}

export interface NewSubscription {
  url: string;
  kinds?: string[];
  states?: string[];
  tenant?: string;
  description?: string;
}

/** A delivery claimed for an attempt, with what the attempt needs. */
export interface DeliveryJob {
  deliveryId: number;
  attempt: number;
  subscriptionId: string;
  url: string;
  secrets: SubscriptionSecret[];
  /** When the delivery was created: its retries end `retryFor` after it. */
  createdAt: Date;
  event: StoredEvent;
}

export interface StoredEvent {
  eventId: string;
  processId: string;
  kind: string;
  state: string;
  previousState?: string;
  reason?: string;
  at: string;
  /** The process's customer; absent for a process of no customer. */
  tenant?: string;
}

export interface DeliveryAttempt {
  eventId: string;
  attempt: number;
  at: string;
  /** The receiver's HTTP status; absent when it did not answer (refused, timed out, a redirect not followed...). */
  statusCode?: number;
  latencyMs: number;
  error?: string;
}

/** Standard Webhooks' secret form: `whsec_` and base64 of 24 to 64 random bytes. */
const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

interface SubscriptionRow {
  id: string;
  url: string;
  kinds: string[] | null;
  states: string[] | null;
  tenant: string | null;
  description: string | null;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  failing_since: Date | string | null;
  created_at: Date | string;
}

const iso = (t: Date | string) => new Date(t).toISOString();

function toSubscription(r: SubscriptionRow): Subscription {
  return {
    id: r.id,
    url: r.url,
    ...(r.kinds ? { kinds: r.kinds } : {}),
    ...(r.states ? { states: r.states } : {}),
    ...(r.tenant ? { tenant: r.tenant } : {}),
    ...(r.description ? { description: r.description } : {}),
    status: r.status,
    ...(r.disabled_reason ? { disabledReason: r.disabled_reason } : {}),
    ...(r.failing_since ? { failingSince: iso(r.failing_since) } : {}),
    createdAt: iso(r.created_at),
  };
}

const SUBSCRIPTION_COLUMNS = 'id, url, kinds, states, tenant, description, status, disabled_reason, failing_since, created_at';

/** `AND` the subscription is customer $n's, when $n is given (a tenant key's request); NULL: any subscription. */
const OWNED = (n: number) => `($${n}::text IS NULL OR tenant = $${n}::text)`;

// $1 how many, $2 lease (ms). The head (oldest pending delivery) of each (subscription, process), of active
// subscriptions, when it is due and not leased: a process's next event waits behind one on its way. DISTINCT ON
// walks the pending rows' index once (a NOT EXISTS per row cost 60 ms a claim at 1,000 pending); SKIP LOCKED lets
// another worker's claim pass by this one's.
const CLAIM = `
  WITH heads AS (
    SELECT DISTINCT ON (subscription_id, process_id) id, next_attempt_at, lease_until
      FROM relayflow_event_deliveries
     WHERE status = 'pending' AND subscription_id IN (SELECT id FROM relayflow_event_subscriptions WHERE status = 'active')
     ORDER BY subscription_id, process_id, id
  ), due AS (
    -- The limit counts rows this claim locked: one it skips (another claim holds it) leaves room for the next head,
    -- so two deliverers claiming at once share the heads instead of one getting none. The heads looked at are
    -- bounded (four times the limit): ordering every head cost half the events bench's throughput.
    SELECT d.id FROM relayflow_event_deliveries d
     WHERE d.id IN (
             SELECT h.id FROM heads h
              WHERE h.next_attempt_at <= now() AND (h.lease_until IS NULL OR h.lease_until < now())
              ORDER BY h.id LIMIT $1 * 4)
       -- Again on the row as locked: a claim that committed after this statement's snapshot is seen here, not in heads.
       AND d.status = 'pending' AND d.next_attempt_at <= now() AND (d.lease_until IS NULL OR d.lease_until < now())
     ORDER BY d.id LIMIT $1
     FOR UPDATE OF d SKIP LOCKED
  ), claimed AS (
    UPDATE relayflow_event_deliveries d
       SET lease_until = now() + make_interval(secs => $2::double precision / 1000), attempts = d.attempts + 1
      FROM due WHERE d.id = due.id
    RETURNING d.id, d.attempts, d.subscription_id, d.position, d.created_at
  )
  SELECT c.id, c.attempts, c.subscription_id, c.created_at, s.url, s.secrets,
         e.event_id, e.process_id, e.kind, e.state, e.previous_state, e.reason, e.occurred_at, e.tenant
    FROM claimed c
    JOIN relayflow_event_subscriptions s ON s.id = c.subscription_id
    JOIN relayflow_events e ON e.position = c.position
   ORDER BY c.id`;

interface ClaimRow {
  id: number | string;
  attempts: number;
  subscription_id: string;
  created_at: Date | string;
  url: string;
  secrets: SubscriptionSecret[];
  event_id: string;
  process_id: string;
  kind: string;
  state: string;
  previous_state: string | null;
  reason: string | null;
  occurred_at: Date | string;
  tenant: string | null;
}

// An attempt into the delivery log: $1 delivery, $2 attempt, $3 subscription, $4 event ID, $5 status, $6 latency, $7 error.
const LOG_ATTEMPT = `INSERT INTO relayflow_event_attempts (delivery_id, attempt, subscription_id, event_id, status_code, latency_ms, error)
  VALUES ($1, $2, $3, $4, $5::integer, $6, $7::text) ON CONFLICT (delivery_id, attempt) DO NOTHING RETURNING 1`;

/** Without a sealer (tests of the store alone), secrets are kept as they are. */
const PLAIN: Sealer = { seal: (s) => s, open: (s) => s };

export class EventSubscriptionStore {
  constructor(
    readonly sql: Sql,
    /** Seals the signing secrets at rest (common/sealed-text.ts, with the codec keys). */
    private readonly sealer: Sealer = PLAIN,
  ) {}

  async create(input: NewSubscription): Promise<{ subscription: Subscription; secret: string }> {
    const secret = newSigningSecret();
    const [row] = await this.sql.query<SubscriptionRow>(
      `INSERT INTO relayflow_event_subscriptions (id, url, kinds, states, description, secrets, status, tenant)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, 'active', $7) RETURNING ${SUBSCRIPTION_COLUMNS}`,
      [
        `sub_${ulid()}`,
        input.url,
        input.kinds ?? null,
        input.states ?? null,
        input.description ?? null,
        JSON.stringify([{ secret: this.sealer.seal(secret) }]),
        input.tenant ?? null,
      ],
    );
    return { subscription: toSubscription(row!), secret };
  }

  /** Every subscription, or only customer `tenant`'s. */
  async list(tenant?: string): Promise<Subscription[]> {
    const rows = await this.sql.query<SubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM relayflow_event_subscriptions WHERE ${OWNED(1)} ORDER BY id`, [
      tenant ?? null,
    ]);
    return rows.map(toSubscription);
  }

  /** With `tenant`, another customer's subscription is not found (as one that does not exist). */
  async get(id: string, tenant?: string): Promise<Subscription | undefined> {
    const [row] = await this.sql.query<SubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM relayflow_event_subscriptions WHERE id = $1 AND ${OWNED(2)}`, [
      id,
      tenant ?? null,
    ]);
    return row ? toSubscription(row) : undefined;
  }

  /** Removes it and everything still to deliver to it; false when there was none (of customer `tenant`'s, when given). */
  async delete(id: string, tenant?: string): Promise<boolean> {
    // The subscription's row first, as an attempt's settling locks it (then its delivery): the same order cannot deadlock.
    return this.sql.transaction(async (tx) => {
      const gone = await tx.query(`DELETE FROM relayflow_event_subscriptions WHERE id = $1 AND ${OWNED(2)} RETURNING id`, [id, tenant ?? null]);
      if (gone.length === 0) return false;
      await tx.query('DELETE FROM relayflow_event_deliveries WHERE subscription_id = $1', [id]);
      return true;
    });
  }

  /** A new secret signs from now on; the current one keeps signing beside it for `overlapMs`. Undefined: no such subscription. */
  async rotateSecret(id: string, overlapMs: number, tenant?: string): Promise<{ secret: string; previousExpiresAt: string } | undefined> {
    const secret = newSigningSecret();
    const previousExpiresAt = new Date(Date.now() + overlapMs).toISOString();
    // Only the current secret overlaps: one rotated out before is dropped.
    const rows = await this.sql.query(
      `UPDATE relayflow_event_subscriptions
          SET secrets = jsonb_build_array(jsonb_build_object('secret', $2::text), jsonb_build_object('secret', secrets->0->>'secret', 'expiresAt', $3::text)),
              updated_at = now()
        WHERE id = $1 AND ${OWNED(4)} RETURNING id`,
      [id, this.sealer.seal(secret), previousExpiresAt, tenant ?? null],
    );
    return rows.length > 0 ? { secret, previousExpiresAt } : undefined;
  }

  /** Active again, from where its deliveries stopped; undefined: no such subscription. */
  async enable(id: string, tenant?: string): Promise<Subscription | undefined> {
    const [row] = await this.sql.query<SubscriptionRow>(
      `UPDATE relayflow_event_subscriptions SET status = 'active', disabled_reason = NULL, failing_since = NULL, updated_at = now()
        WHERE id = $1 AND ${OWNED(2)} RETURNING ${SUBSCRIPTION_COLUMNS}`,
      [id, tenant ?? null],
    );
    if (row) await this.sql.query(`UPDATE relayflow_event_deliveries SET next_attempt_at = now() WHERE subscription_id = $1 AND status = 'pending'`, [id]);
    return row ? toSubscription(row) : undefined;
  }

  /** Delivers again every kept event from `since` on that the subscription wants; how many were queued, undefined: no such subscription. */
  async replay(id: string, since: Date, tenant?: string): Promise<number | undefined> {
    return this.sql.transaction(async (tx) => {
      const [sub] = await tx.query<{ kinds: string[] | null; states: string[] | null; tenant: string | null }>(
        `SELECT kinds, states, tenant FROM relayflow_event_subscriptions WHERE id = $1 AND ${OWNED(2)}`,
        [id, tenant ?? null],
      );
      if (!sub) return undefined;
      const queued = await tx.query(
        `INSERT INTO relayflow_event_deliveries (subscription_id, position, process_id, status)
         SELECT $1, e.position, e.process_id, 'pending' FROM relayflow_events e
          WHERE e.occurred_at >= $2 AND ($3::text[] IS NULL OR e.kind = ANY ($3)) AND ($4::text[] IS NULL OR e.state = ANY ($4))
            AND ($5::text IS NULL OR e.tenant = $5::text)
          ORDER BY e.position
         RETURNING id`,
        [id, since.toISOString(), sub.kinds, sub.states, sub.tenant],
      );
      return queued.length;
    });
  }

  /** Claims up to `limit` deliveries for an attempt each, held for `leaseMs`. */
  async claim(limit: number, leaseMs: number): Promise<DeliveryJob[]> {
    const rows = await this.sql.query<ClaimRow>(CLAIM, [limit, leaseMs]);
    return rows.map((r) => ({
      deliveryId: Number(r.id),
      attempt: r.attempts,
      subscriptionId: r.subscription_id,
      url: r.url,
      secrets: r.secrets.map((x) => ({ ...x, secret: this.sealer.open(x.secret) })),
      createdAt: new Date(r.created_at),
      event: {
        eventId: r.event_id,
        processId: r.process_id,
        kind: r.kind,
        state: r.state,
        ...(r.previous_state ? { previousState: r.previous_state } : {}),
        ...(r.reason ? { reason: r.reason } : {}),
        at: iso(r.occurred_at),
        ...(r.tenant ? { tenant: r.tenant } : {}),
      },
    }));
  }

  /** The receiver took it: delivered, logged, and its subscription no longer failing (one statement: all or none). */
  async delivered(job: DeliveryJob, result: { statusCode: number; latencyMs: number }): Promise<void> {
    await this.sql.query(
      `WITH settled AS (
         UPDATE relayflow_event_deliveries SET status = 'delivered', delivered_at = now(), lease_until = NULL
          WHERE id = $1 AND (attempts = $2 OR status = 'pending') RETURNING id
       ), logged AS (${LOG_ATTEMPT})
       UPDATE relayflow_event_subscriptions SET failing_since = NULL WHERE id = $3 AND failing_since IS NOT NULL`,
      [job.deliveryId, job.attempt, job.subscriptionId, job.event.eventId, result.statusCode, Math.round(result.latencyMs), null],
    );
  }

  /**
   * The attempt failed (only the latest attempt's failure moves the delivery: one whose lease ran out and was taken
   * again must not clear the newer attempt's lease): tried again at `retryAt`, or, when `disable` says why, its subscription is disabled (the
   * delivery stays pending: enabling the subscription resumes from it). One statement: all or none.
   */
  async failed(job: DeliveryJob, result: { statusCode?: number; latencyMs: number; error: string; retryAt: Date; disable?: string }): Promise<void> {
    await this.sql.query(
      `WITH settled AS (
         UPDATE relayflow_event_deliveries SET next_attempt_at = $8, lease_until = NULL
          WHERE id = $1 AND attempts = $2 AND status = 'pending' RETURNING id
       ), logged AS (${LOG_ATTEMPT})
       UPDATE relayflow_event_subscriptions
          SET failing_since = coalesce(failing_since, now()),
              status = CASE WHEN $9::text IS NULL THEN status ELSE 'disabled' END,
              disabled_reason = coalesce($9::text, disabled_reason), updated_at = now()
        WHERE id = $3`,
      [
        job.deliveryId,
        job.attempt,
        job.subscriptionId,
        job.event.eventId,
        result.statusCode ?? null,
        Math.round(result.latencyMs),
        result.error.slice(0, 500),
        result.retryAt.toISOString(),
        result.disable ?? null,
      ],
    );
  }

  /** The subscription's attempts, newest first; `before`: older than this time. */
  async attempts(id: string, limit: number, before?: Date): Promise<DeliveryAttempt[]> {
    const rows = await this.sql.query<{
      event_id: string;
      attempt: number;
      at: Date | string;
      status_code: number | null;
      latency_ms: number;
      error: string | null;
    }>(
      `SELECT event_id, attempt, at, status_code, latency_ms, error FROM relayflow_event_attempts
        WHERE subscription_id = $1 AND ($2::timestamptz IS NULL OR at < $2)
        ORDER BY at DESC, delivery_id DESC, attempt DESC LIMIT $3`,
      [id, before?.toISOString() ?? null, limit],
    );
    return rows.map((r) => ({
      eventId: r.event_id,
      attempt: r.attempt,
      at: iso(r.at),
      ...(r.status_code !== null ? { statusCode: r.status_code } : {}),
      latencyMs: r.latency_ms,
      ...(r.error ? { error: r.error } : {}),
    }));
  }

  /** How many deliveries a subscription still has to make. */
  async pendingCount(id: string): Promise<number> {
    const [row] = await this.sql.query<{ n: number | string }>(
      `SELECT count(*) AS n FROM relayflow_event_deliveries WHERE subscription_id = $1 AND status = 'pending'`,
      [id],
    );
    return Number(row?.n ?? 0);
  }

  /** Forgets events, deliveries and attempts older than `keepMs`, except what is still to deliver. */
  async sweep(keepMs: number): Promise<void> {
    const before = new Date(Date.now() - keepMs).toISOString();
    await this.sql.query(`DELETE FROM relayflow_event_attempts WHERE at < $1`, [before]);
    await this.sql.query(`DELETE FROM relayflow_event_deliveries WHERE status = 'delivered' AND created_at < $1`, [before]);
    // A fan-out that read a subscription as it was deleted leaves deliveries no one will make.
    await this.sql.query(
      `DELETE FROM relayflow_event_deliveries d WHERE d.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM relayflow_event_subscriptions s WHERE s.id = d.subscription_id)`,
      [before],
    );
    await this.sql.query(
      `DELETE FROM relayflow_events e WHERE e.occurred_at < $1
          AND NOT EXISTS (SELECT 1 FROM relayflow_event_deliveries d WHERE d.position = e.position)`,
      [before],
    );
  }
}
