// One chunk of a campaign: recipient rows [from, to) sent in the campaign's shared schedule (below), heartbeating.
// At most once per recipient: a row is claimed (pending -> sending, with a lease) right before its request, and its
// outcome is recorded after; a row whose answer was lost is settled by asking the platform (conversation) or by the
// postback that names it (MMS), never by sending blindly again. A look-up's "not there" means "not sent" only
// once the request can no longer arrive: a request the client gave up on may still be on its way (queued in
// front of the platform, or in a starved process), so an in-doubt row is looked up LANDING_GRACE_MS after its
// answer was lost, and a claimed row's request starts within SEND_WITHIN_MS of its claim or not at all (its
// lease covers both). Each attempt records only rows its own claim holds: an attempt Temporal gave up on (lost
// heartbeat) cannot undo what a newer one settled. A claimed row whose number opted out of the app is marked
// suppressed instead of sent (the store decides, not the workflow). Throttling (429 / E113) holds the campaign's schedule and slows
// the chunk down where it is; outages and refusals end the attempt with the failure Temporal's retry policy needs,
// and the next attempt resumes from the store.
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { CAMPAIGN_BILLING_REFUSED, CAMPAIGN_HALTED, CAMPAIGN_REFUSED, campaignMessageToken, type ChunkResult, type SendChunkInput } from '../contract.js';
import { classifySendError, type SendErrorKind } from '../../../platform/send-errors.js';
import type { CampaignStore, ClaimedRecipient, SendResult, SuppressionStore } from '../../../store/index.js';
import type { MessageSender } from './senders.js';

/**
 * Sends are paced by the campaign's one schedule in the store (CampaignStore.reserveSends), shared by all its chunks on
 * every worker: a chunk reserves the next SLOTS_AHEAD_MS of slots at the campaign's whole rate, claims that many rows
 * just before the first slot (reserving the block after it at the same time), and sends each in its slot. The chunks'
 * blocks interleave, so together they keep exactly the rate whatever the window, a chunk that ends or starts leaves no
 * share unused, and none keeps a headroom of its own.
 */
const SLOTS_AHEAD_MS = 200;
const MAX_SLOTS = 100;
/** Claimed this long before the block's first slot, so the claim's round trip does not make it late. */
const CLAIM_LEAD_MS = 10;
/** How much of an idle schedule may be made up at once (a short stall between blocks costs nothing). */
const CATCH_UP_MS = 25;
/**
 * Requests a chunk keeps in flight: 16, or half a second of the campaign's whole rate when that is more (at most 128).
 * The chunks' blocks take turns, so the one sending carries the whole rate: with a cap of 16 (and the next block
 * reserved only after a block was sent) a bench run on a loaded machine reached 0.26 to 0.47 of a 200/s limit
 * (bench/campaign.ts); 16 in flight at answers of about 150 ms is about 100/s (inferred, not measured per request).
 */
const MIN_IN_FLIGHT = 16;
const IN_FLIGHT_SECONDS = 0.5;
const MAX_IN_FLIGHT = 128;
/** A 429 / E113 slows the chunk's reservations to this share of its pace (not below MIN_PACE); it recovers 5% a second. */
const THROTTLED_PACE = 0.8;
const MIN_PACE = 0.2;
const FLUSH_MS = 250;
/** This many "not now" or lost answers (503, refused connections, timeouts) in a row end the attempt: Temporal backs off. */
const MAX_UNAVAILABLE_IN_A_ROW = 3;
/**
 * How long after its client gave up a request may still reach the platform and be taken (in front of the
 * platform, or in a process too busy to write or read it): a look-up before then cannot tell "not sent".
 * 5 s was too short: in a soak round (Temporal killed, a starved 2-core machine) two requests landed about 7.5 s
 * after their client gave up, just after a look-up had found nothing, and were sent again.
 */
const LANDING_GRACE_MS = 20_000;
/** A claimed row's request starts within this long of the claim, or the row goes back unsent (its lease counts on it). */
const SEND_WITHIN_MS = 2_000;

export interface SendChunkDeps {
  store: CampaignStore;
  senderFor(input: SendChunkInput): MessageSender;
  /** The platform request timeout: a claim's lease outlives it, so a live sender's row is never settled by another. */
  requestTimeoutMs: number;
  /** LANDING_GRACE_MS unless set. */
  landingGraceMs?: number;
  /** The apps' suppression lists (conversation campaigns); absent: nobody is suppressed. */
  suppressions?: Pick<SuppressionStore, 'suppressedOf'>;
}

/** The reason a suppressed recipient shows (and is counted by) in its campaign. */
const SUPPRESSED_REASON = "opted out: the number is on the app's suppression list";

/** What a retried attempt resumes with (heartbeat details). */
interface Progress extends Omit<ChunkResult, 'from' | 'to'> {
  /** Below 1 after throttling: this attempt paces slower, recovering 5% a second. */
  paceFactor: number;
}

type Stop = { kind: Extract<SendErrorKind, 'not_sent' | 'in_doubt' | 'campaign_refused' | 'billing_refused'> | 'halted'; message: string };

export function sendChunkActivity(deps: SendChunkDeps) {
  return async function sendChunk(input: SendChunkInput): Promise<ChunkResult> {
    const ctx = Context.current();
    const { store } = deps;
    const id = input.campaignId;
    const p: Progress = {
      sent: 0,
      failed: 0,
      inDoubt: 0,
      recovered: 0,
      resent: 0,
      throttled: 0,
      paceFactor: 1,
      ...(ctx.info.heartbeatDetails as Partial<Progress> | undefined),
    };
    const sender = deps.senderFor(input);
    const graceMs = deps.landingGraceMs ?? LANDING_GRACE_MS;
    // Claim to request start, the request, then the time it may still take to arrive.
    const leaseMs = SEND_WITHIN_MS + deps.requestTimeoutMs + graceMs;
    const claimId = randomUUID();
    const beat = () => ctx.heartbeat(p);
    const cancelled = () => ctx.cancellationSignal.aborted;
    const appId = input.conversation?.appId;

    /**
     * Claimed rows whose number is on the app's suppression list are marked suppressed (never sent) as soon as they
     * are claimed, so an opt-out that came while the campaign ran is honoured from the next block on.
     */
    async function withoutSuppressed(rows: ClaimedRecipient[]): Promise<ClaimedRecipient[]> {
      if (!rows.length || !appId || !deps.suppressions) return rows;
      const suppressed = await deps.suppressions.suppressedOf(
        appId,
        rows.map((r) => r.recipient),
      );
      if (!suppressed.size) return rows;
      const refused = rows.filter((r) => suppressed.has(r.recipient)).map((r) => r.seq);
      await store.suppress(id, refused, claimId, SUPPRESSED_REASON);
      ctx.log.info('recipients on the suppression list: not sent', { campaignId: id, suppressed: refused.length });
      return rows.filter((r) => !suppressed.has(r.recipient));
    }

    for (;;) {
      await settle(store, sender, input, p, beat);
      const stop = await pace();
      if (stop) throw failureFor(stop);
      if (cancelled()) throw ctx.cancellationSignal.reason ?? new Error('cancelled');
      const left = await store.rangeCounts(id, input.from, input.to);
      const waitingLookup = sender.lookup ? (left.in_doubt ?? 0) : 0;
      if (!left.pending && !left.sending && !waitingLookup) {
        beat();
        const { paceFactor: _f, ...result } = p;
        return { from: input.from, to: input.to, ...result, inDoubt: left.in_doubt ?? 0 };
      }
      if (left.sending || waitingLookup) {
        // Rows another attempt still holds (a worker that lost its heartbeat but may be mid-request), or answers lost
        // so recently that their request may still arrive: wait out the lease before asking the platform.
        const { leasedUntil } = await store.unsettled(id, input.from, input.to);
        if (leasedUntil) await pauseFor(Math.min(leasedUntil - Date.now() + 50, leaseMs), ctx, beat);
      }
    }

    /** Sends the range's pending rows in the campaign's shared schedule; returns why it stopped early, if it did. */
    async function pace(): Promise<Stop | undefined> {
      let stop: Stop | undefined;
      let unavailableInARow = 0;
      let backoffUntil = 0;
      let flushedAt = Date.now();
      let recoveredAt = Date.now();
      let rate = (await store.sendControl(id)).rate ?? 1;
      const share = sender.share ?? 1;
      const results: SendResult[] = [];
      /** Claimed, never sent. */
      const released: number[] = [];
      const inflight = new Set<Promise<void>>();
      const flush = async () => {
        flushedAt = Date.now();
        await store.record(id, results.splice(0), { claimId, inDoubtLeaseMs: graceMs });
        await store.release(id, released.splice(0), claimId);
        beat();
      };
      const release = (rows: ClaimedRecipient[]) => released.push(...rows.map((r) => r.seq));

      const sendOne = async (row: ClaimedRecipient) => {
        try {
          const r = await sender.send(row, campaignMessageToken(id, row.seq));
          results.push({ seq: row.seq, status: 'sent', platformId: r.platformId });
          p.sent++;
          unavailableInARow = 0;
        } catch (err) {
          const c = classifySendError(err);
          switch (c.kind) {
            case 'recipient_rejected':
              results.push({ seq: row.seq, status: 'failed', reason: `${c.code}: ${c.message}` });
              p.failed++;
              return;
            case 'in_doubt':
              results.push({ seq: row.seq, status: 'in_doubt', reason: `answer lost (${c.code}): ${c.message}` });
              break;
            default:
              // Definitely not taken: sent again (the request counts as an attempt).
              results.push({ seq: row.seq, status: 'pending' });
          }
          if (c.kind === 'throttled') {
            // The budget is the app's or the project's, not this chunk's: the campaign's schedule holds for Retry-After
            // (every chunk's next slots start after it), this chunk drops the rest of its block, and reserves at a
            // slower pace for a while. Not a Temporal retry: the chunk goes on where it is.
            p.throttled++;
            const now = Date.now();
            const waitMs = Math.max(200, c.retryAfterMs ?? 1_000);
            if (now >= backoffUntil) {
              p.paceFactor = Math.max(MIN_PACE, p.paceFactor * THROTTLED_PACE);
              await store.holdSends(id, waitMs);
            }
            backoffUntil = Math.max(backoffUntil, now + waitMs);
          } else if (c.kind === 'campaign_refused' || c.kind === 'billing_refused') stop ??= { kind: c.kind, message: `${c.code}: ${c.message}` };
          else if (++unavailableInARow >= MAX_UNAVAILABLE_IN_A_ROW) stop ??= { kind: c.kind as Stop['kind'], message: `${c.code}: ${c.message}` };
        }
      };

      /** Slots of the shared schedule, asked for at the chunk's current pace. */
      const reserve = () => {
        const want = Math.max(1, Math.min(MAX_SLOTS, Math.round((SLOTS_AHEAD_MS * rate * share) / 1000)));
        return store.reserveSends(id, want, share * p.paceFactor, CATCH_UP_MS).then((r) => ({ ...r, startAt: Date.now() + r.startInMs }));
      };
      type Slots = Awaited<ReturnType<typeof reserve>>;
      // The next block is reserved as soon as this one is claimed, so the schedule always runs a block ahead of
      // every chunk: a slow flush or claim (a loaded store, a busy process) never leaves it idle.
      let next: Promise<Slots> | undefined;
      let pending = (await store.rangeCounts(id, input.from, input.to)).pending ?? 0;
      try {
        while (!stop && !cancelled()) {
          const now = Date.now();
          p.paceFactor = Math.min(1, p.paceFactor + (0.05 * (now - recoveredAt)) / 1000);
          recoveredAt = now;
          if (backoffUntil > now) {
            await pauseFor(backoffUntil - now, ctx, beat);
            continue;
          }
          const slots = await (next ?? reserve());
          next = undefined;
          if (slots.rate !== undefined) rate = slots.rate;
          if (slots.halt) {
            stop = { kind: 'halted', message: `the campaign was ${slots.halt}` };
            break;
          }
          // Reserved before a 429's hold: not used (the campaign's schedule starts again after the hold).
          if (slots.startAt < backoffUntil) continue;
          if (slots.startAt - CLAIM_LEAD_MS > Date.now()) await pauseFor(slots.startAt - CLAIM_LEAD_MS - Date.now(), ctx, beat);
          if (stop || cancelled()) {
            await store.returnSends(id, slots, slots.slots);
            break;
          }
          // Taken before the claim, so the lease (counted from the claim in the store) runs at least as long as this says.
          const claimedAt = Date.now();
          const claimed = await store.claim(id, input.from, input.to, slots.slots, leaseMs, claimId);
          const rows = await withoutSuppressed(claimed);
          // Slots no row of this chunk will use go back to the campaign, when nobody has reserved after them.
          if (rows.length < slots.slots) await store.returnSends(id, slots, slots.slots - rows.length);
          if (!claimed.length) break;
          pending -= claimed.length;
          if (pending > 0 && claimed.length === slots.slots) {
            next = reserve();
            // Handled where it is awaited; until then a failed reservation must not count as unhandled.
            next.catch(() => undefined);
          }
          for (const [i, row] of rows.entries()) {
            if (stop || cancelled() || backoffUntil > Date.now()) {
              release(rows.slice(i));
              break;
            }
            const wait = slots.startAt + i * slots.slotMs - Date.now();
            if (wait > 0) await pauseFor(wait, ctx, beat);
            while (inflight.size >= Math.max(MIN_IN_FLIGHT, Math.min(MAX_IN_FLIGHT, Math.ceil(rate * share * IN_FLIGHT_SECONDS)))) await Promise.race(inflight);
            // Too late for its lease (a slow platform held the in-flight slots, or the process was starved): a request
            // started now could still be arriving when another attempt, seeing the lease ended, asks for it.
            if (cancelled() || Date.now() - claimedAt > SEND_WITHIN_MS) {
              release(rows.slice(i));
              break;
            }
            // A slot missed (a late timer, a slow claim) is sent at once: at most one block's worth, never beyond it.
            const sending: Promise<void> = sendOne(row).finally(() => inflight.delete(sending));
            inflight.add(sending);
          }
          if (Date.now() - flushedAt >= FLUSH_MS) await flush();
        }
      } finally {
        // A block reserved and not used: back to the campaign when it is still the schedule's last.
        if (next) await next.then((r) => store.returnSends(id, r, r.slots)).catch(() => undefined);
      }
      await Promise.all(inflight);
      await flush();
      return stop;
    }
  };
}

/**
 * Rows of the range whose answer was lost (`in_doubt`) or whose sender died (`sending`), once their lease has
 * ended (their request can no longer arrive): the conversation API is asked for the message by its token:
 * found means sent, not found means send again.
 * Without a lookup (MMS) they stay in doubt until a postback names them.
 */
async function settle(store: CampaignStore, sender: MessageSender, input: SendChunkInput, p: Progress, beat: () => void): Promise<void> {
  const { rows } = await store.unsettled(input.campaignId, input.from, input.to);
  if (!rows.length) return;
  const results: SendResult[] = [];
  for (const row of rows) {
    if (!sender.lookup) {
      if (row.status === 'sending') results.push({ seq: row.seq, status: 'in_doubt', reason: 'the sender stopped before the answer was recorded' });
      continue;
    }
    const platformId = await sender.lookup(row, campaignMessageToken(input.campaignId, row.seq));
    if (platformId) {
      results.push({ seq: row.seq, status: 'sent', platformId });
      p.recovered++;
    } else {
      results.push({ seq: row.seq, status: 'pending' });
      p.resent++;
    }
    // Every look-up: slow ones, fifty apart, outlived the heartbeat timeout and Temporal gave the chunk to another attempt.
    beat();
  }
  // A lookup that throws leaves the rest in doubt; the attempt fails and Temporal retries it later.
  await store.record(input.campaignId, results);
  beat();
}

function failureFor(stop: Stop): ApplicationFailure {
  if (stop.kind === 'halted') return ApplicationFailure.create({ type: CAMPAIGN_HALTED, message: stop.message, nonRetryable: true });
  if (stop.kind === 'campaign_refused') return ApplicationFailure.create({ type: CAMPAIGN_REFUSED, message: stop.message, nonRetryable: true });
  // Its own type, so the campaign pauses saying to top up rather than to fix credentials.
  if (stop.kind === 'billing_refused') return ApplicationFailure.create({ type: CAMPAIGN_BILLING_REFUSED, message: stop.message, nonRetryable: true });
  return ApplicationFailure.create({ type: 'PlatformUnavailable', message: `the platform did not take messages: ${stop.message}` });
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits, heartbeating at least every second (so cancellation arrives), and returns early when cancelled. */
async function pauseFor(ms: number, ctx: Context, beat: () => void): Promise<void> {
  const until = Date.now() + Math.max(0, ms);
  while (Date.now() < until && !ctx.cancellationSignal.aborted) {
    const step = Math.min(1_000, until - Date.now());
    if (step >= 1_000) beat();
    await delay(step);
  }
}
