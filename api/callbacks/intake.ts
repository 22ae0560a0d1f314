// The one pipeline every platform callback goes through. Each intake declares how its signature is checked over the
// raw body, how its body is read (its schema, and the event's ID: the platform's own, or one derived where it gives
// none; docs/*-wire.md say which), and how the event is handed to its process with the answer that goes back. The
// pipeline does the rest the same way for all: 401 on a bad signature (the body never logged), the event ID claimed
// in the store (store/seen-callbacks.ts, shared by every API instance, so a repeat at another instance is dropped
// too), the hand-off, the answer. A hand-off that fails is a 503 and its claim is removed, so the platform's retry is
// taken; a delivery that finds another delivery of its event being handed over is a 503 too (retry later), since
// that one may yet fail. Where the hand-off is itself a write that finds repeats (a delivery report, an SMS receipt,
// a voice answer kept with its call), that write carries the dedupe and the intake says so (`dedupe: 'hand-off'`).
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import type { SeenCallbackStore, SeenOutcome } from '../../store/seen-callbacks.js';
import { ApiError } from '../errors.js';
import { noteDuplicateCallback } from '../plugins/metrics.js';

export type CallbackIntake = 'conversation' | 'mms' | 'provisioning' | 'senderid' | 'verification' | 'voice';

interface Answer {
  /** Default 200. */
  status?: number;
  /** Nothing: an empty body. */
  body?: unknown;
  headers?: Record<string, string>;
}

type Signed = { ok: true; secretIndex?: number } | { ok: false; reason: string };

/** The body read: an event to hand over under its ID, or an answer at once (not ours, or nothing to record). */
type Read<E> = { eventId: string; event: E; dedupe?: Dedupe } | { answer: Answer };

/**
 * pipeline: the event ID is claimed before the hand-off. hand-off: the hand-off's own write finds repeats (and keeps the
 * answer a repeat must get again), or it claims through `ctx.claim()` when it needs to.
 */
type Dedupe = 'pipeline' | 'hand-off';

export interface HandOffContext {
  req: FastifyRequest;
  log: FastifyBaseLogger;
  eventId: string;
  /** Claims the event ID (once; later calls give the same outcome). Throws a 503 when the store does not answer. */
  claim(): Promise<SeenOutcome>;
}

export interface HandedOff {
  answer: Answer;
  /** The hand-off found the event handed over before (counted as a duplicate). */
  duplicate?: boolean;
  /**
   * Whether the event reached its process (default true); a claim of one that did not is removed so a repeat may try
   * again. A promise: the answer goes now, the claim is settled when it resolves.
   */
  applied?: boolean | Promise<boolean>;
}

export interface IntakeDeclaration<E> {
  intake: CallbackIntake;
  url: string;
  /** The signature over the raw body (or the URL's secret), checked before anything else is read. */
  verify(req: FastifyRequest, rawBody: Buffer): Signed;
  /** What a delivery that is not signed as expected gets: by default 401 naming the reason. */
  refuse?(reason: string): ApiError;
  /** The body against the intake's schema (a 400 naming the field when it breaks it), and the event's ID. */
  read(req: FastifyRequest, rawBody: Buffer, log: FastifyBaseLogger): Read<E>;
  /** Where repeats are found, unless the read says otherwise (default: pipeline). */
  dedupe?: Dedupe;
  handOff(event: E, ctx: HandOffContext): Promise<HandedOff>;
  /** What a repeat of an event handed over before gets (default 200 `{duplicate: true}`). */
  repeated?: Answer;
  /**
   * What a delivery of an event another delivery is handing over now gets: retry (503, the default) or the repeat's
   * answer (where the platform never sends it again: retrying is not an option).
   */
  inFlight?: 'retry' | 'repeated';
}

/** An event ID for a body whose platform gives none: the hash of the signed bytes (a retry sends the same bytes). */
export const bodyHash = (rawBody: Buffer) => `sha256:${createHash('sha256').update(rawBody).digest('base64url')}`;

/** How often each API instance drops claims past their day (an idempotent DELETE: every instance may run it). */
const SWEEP_EVERY_MS = 10 * 60_000;
const RETRY_AFTER_MS = 5_000;

export class IntakePipeline {
  readonly #sweeper: NodeJS.Timeout | undefined;

  /** Without the store nothing is deduped here: every process still drops an event ID it has. */
  constructor(
    readonly seen: SeenCallbackStore | undefined,
    log: Pick<FastifyBaseLogger, 'warn'>,
  ) {
    if (!seen) return;
    this.#sweeper = setInterval(() => {
      seen.sweep().catch((err: unknown) => log.warn({ err }, 'seen callbacks not swept; the next sweep tries again'));
    }, SWEEP_EVERY_MS);
    this.#sweeper.unref();
  }

  close(): void {
    clearInterval(this.#sweeper);
  }

  /** The intake's route, on `app` (its plugin's instance). */
  route<E>(app: FastifyInstance, d: IntakeDeclaration<E>): void {
    app.post(d.url, { config: { auth: 'signature' }, schema: { hide: true } as never }, (req, reply) => this.#take(d, req, reply));
  }

  async #take<E>(d: IntakeDeclaration<E>, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const log = req.log;
    const { intake } = d;
    const rawBody = req.rawBody ?? Buffer.alloc(0);
    const signed = d.verify(req, rawBody);
    if (!signed.ok) {
      // Never the body: it is not ours until the signature says so.
      log.warn({ intake, reason: signed.reason, bytes: rawBody.length }, 'callback refused: bad or missing signature');
      throw d.refuse?.(signed.reason) ?? new ApiError(401, 'bad_signature', `callback signature rejected: ${signed.reason}`);
    }
    if (signed.secretIndex) log.info({ intake, secretIndex: signed.secretIndex }, 'callback signed with a previous secret (rotation under way)');

    const read = d.read(req, rawBody, log);
    if ('answer' in read) return send(reply, read.answer);
    const { eventId, event } = read;
    const claim = this.#claimer(intake, eventId);
    if ((read.dedupe ?? d.dedupe ?? 'pipeline') === 'pipeline') {
      const outcome = await claim.take();
      if (outcome !== 'new') return this.#repeat(d, outcome, req, reply, log, eventId);
    }
    let out: HandedOff;
    try {
      out = await d.handOff(event, { req, log, eventId, claim: claim.take });
    } catch (err) {
      await claim.settle(false, log);
      if (err instanceof ApiError) throw err;
      log.warn({ err, intake, eventId }, 'callback not handed over; the platform will retry');
      throw new ApiError(503, 'unavailable', 'could not record the callback; retry later', undefined, RETRY_AFTER_MS);
    }
    if (out.applied instanceof Promise) void out.applied.then((ok) => claim.settle(ok, log));
    else await claim.settle(out.applied ?? true, log);
    if (out.duplicate) noteDuplicateCallback(req);
    return send(reply, out.answer);
  }

  #repeat<E>(d: IntakeDeclaration<E>, outcome: SeenOutcome, req: FastifyRequest, reply: FastifyReply, log: FastifyBaseLogger, eventId: string): FastifyReply {
    if (outcome === 'in-flight' && d.inFlight !== 'repeated') {
      log.info({ intake: d.intake, eventId }, 'callback being handed over by another delivery: retry later');
      throw new ApiError(503, 'in_flight', 'another delivery of this event is being recorded; retry later', undefined, RETRY_AFTER_MS);
    }
    log.info({ intake: d.intake, eventId }, 'callback repeated: dropped');
    noteDuplicateCallback(req);
    return send(reply, d.repeated ?? { body: { duplicate: true } });
  }

  /** The claim of one delivery: taken once, then settled once (handed, or released so a repeat may try again). */
  #claimer(intake: CallbackIntake, eventId: string) {
    const seen = this.seen;
    let taken: Promise<SeenOutcome> | undefined;
    return {
      take: (): Promise<SeenOutcome> =>
        (taken ??= seen
          ? seen.claim(intake, eventId).catch((err: unknown) => {
              throw new ApiError(503, 'store_unavailable', `the store did not answer: ${(err as Error).message}`, undefined, RETRY_AFTER_MS);
            })
          : Promise.resolve('new')),
      settle: async (applied: boolean, log: FastifyBaseLogger): Promise<void> => {
        if (!seen || !taken || (await taken.catch(() => undefined)) !== 'new') return;
        try {
          await (applied ? seen.handed(intake, eventId) : seen.release(intake, eventId));
        } catch (err) {
          // Handed but not marked: a repeat after the lease is handed over again (the process drops it). Not released:
          // a retry after the lease takes it.
          log.warn({ err, intake, eventId, applied }, 'callback claim not settled in the store; it holds until its lease ends');
        }
      },
    };
  }
}

function send(reply: FastifyReply, a: Answer): FastifyReply {
  reply.status(a.status ?? 200);
  if (a.headers) reply.headers(a.headers);
  return a.body === undefined ? reply.send() : reply.send(a.body);
}
