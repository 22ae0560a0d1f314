// Sends the platform's callbacks: signed JSON POSTs, retried on the area's schedule, every attempt recorded for
// GET /_sandbox/callbacks. Faults are not decided here: the callback hubs (callback-hub.ts) decide them and
// record a dropped callback through dropped().
// Nothing here survives a restart of a persistent sandbox: deliveries in flight (and their retries) are lost,
// as the platform's callbacks are hints and relayflow re-reads the resources they announce.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { nodeTransport } from '../../common/http-transport.js';

interface CallbackSignInput {
  method: 'POST';
  url: string;
  /** The callback URL's path (no query string): what application-signed callbacks sign. */
  path: string;
  rawBody: string;
  contentType: string;
}

/** Returns the headers to add to one attempt; called per attempt so timestamps and nonces are fresh. */
export type CallbackSigner = (input: CallbackSignInput) => Record<string, string>;

export interface DispatchRequest {
  area: string;
  url: string;
  /** Serialised as JSON; a string is taken as already-serialised JSON text. */
  body: unknown;
  signer?: CallbackSigner;
  /** Delays (ms) before each retry; its length is the number of retries. Default DEFAULT_RETRY_SCHEDULE. */
  retrySchedule?: readonly number[];
  /** Per-attempt timeout; default 10 s (the MMS postback rule). */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [1000, 2000, 4000, 8000, 16000];
const DEFAULT_TIMEOUT_MS = 10_000;

interface CallbackAttempt {
  at: string;
  status?: number;
  error?: string;
  durationMs: number;
}

type CallbackOutcome = 'pending' | 'delivered' | 'failed' | 'dropped' | 'cancelled';

export interface CallbackRecord {
  id: string;
  area: string;
  url: string;
  body: unknown;
  /** Headers of the latest attempt (signatures included: they are not secrets). */
  headers: Record<string, string>;
  outcome: CallbackOutcome;
  /** Set on the second copy sent because of a `duplicate` callback fault. */
  duplicateOf?: string;
  createdAt: string;
  attempts: CallbackAttempt[];
}

export interface CallbackResult {
  id: string;
  outcome: Exclude<CallbackOutcome, 'pending'>;
  delivered: boolean;
  attempts: number;
  /** Status and body of the last answer received, if any (voice and verification areas read replies). */
  status?: number;
  responseText?: string;
  /** The id of the duplicate copy, when one was sent. */
  duplicateId?: string;
}

interface Sleeper {
  timer: NodeJS.Timeout;
  resolve: (slept: boolean) => void;
}

export interface CallbackDispatcherOptions {
  logger?: Logger | undefined;
  /** Most recent records kept for inspection. */
  maxRecords?: number;
}

export class CallbackDispatcher {
  private records: CallbackRecord[] = [];
  private readonly sleepers = new Set<Sleeper>();
  private readonly inFlight = new Set<AbortController>();
  /** Bumped by cancelAll(): deliveries started before stop at their next step. */
  private generation = 0;
  private closed = false;

  constructor(private readonly opts: CallbackDispatcherOptions = {}) {}

  /** Never rejects; resolves when the callback is delivered, given up or cancelled. */
  async dispatch(req: DispatchRequest): Promise<CallbackResult> {
    const record = this.newRecord(req);
    if (this.closed) return this.finish(record, 'cancelled');
    return this.deliver(record, req);
  }

  /** Sends `req` twice at once (a duplicate fault): the second copy is recorded as the first's duplicate. */
  async duplicate(req: DispatchRequest): Promise<CallbackResult> {
    const record = this.newRecord(req);
    const copy = this.newRecord(req, record.id);
    const [first] = await Promise.all([this.deliver(record, req), this.deliver(copy, req)]);
    return { ...first, duplicateId: copy.id };
  }

  /** Records a callback a fault dropped: never sent. */
  dropped(req: DispatchRequest): CallbackResult {
    return this.finish(this.newRecord(req), 'dropped');
  }

  get isClosed(): boolean {
    return this.closed;
  }

  list(): CallbackRecord[] {
    return this.records.map((r) => ({ ...r, attempts: [...r.attempts] }));
  }

  /** Stops pending retries and in-flight attempts (their results say `cancelled`). */
  cancelAll(): void {
    this.generation++;
    for (const s of this.sleepers) {
      clearTimeout(s.timer);
      s.resolve(false);
    }
    this.sleepers.clear();
    for (const c of this.inFlight) c.abort();
    this.inFlight.clear();
  }

  clear(): void {
    this.cancelAll();
    this.records = [];
  }

  close(): void {
    this.closed = true;
    this.cancelAll();
  }

  private newRecord(req: DispatchRequest, duplicateOf?: string): CallbackRecord {
    const record: CallbackRecord = {
      id: randomUUID(),
      area: req.area,
      url: req.url,
      body: typeof req.body === 'string' ? safeParse(req.body) : req.body,
      headers: {},
      outcome: 'pending',
      createdAt: new Date().toISOString(),
      attempts: [],
      ...(duplicateOf ? { duplicateOf } : {}),
    };
    this.records.push(record);
    const max = this.opts.maxRecords ?? 10_000;
    if (this.records.length > max) this.records = this.records.slice(-max);
    return record;
  }

  private finish(record: CallbackRecord, outcome: CallbackResult['outcome'], last?: { status?: number; text?: string }): CallbackResult {
    record.outcome = outcome;
    return {
      id: record.id,
      outcome,
      delivered: outcome === 'delivered',
      attempts: record.attempts.length,
      ...(last?.status !== undefined ? { status: last.status } : {}),
      ...(last?.text !== undefined ? { responseText: last.text } : {}),
    };
  }

  private async deliver(record: CallbackRecord, req: DispatchRequest): Promise<CallbackResult> {
    const generation = this.generation;
    const schedule = req.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
    const rawBody = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    let last: { status?: number; text?: string } = {};
    for (let attempt = 0; ; attempt++) {
      if (this.closed || generation !== this.generation) return this.finish(record, 'cancelled', last);
      last = await this.attempt(record, req, rawBody);
      if (last.status !== undefined && last.status >= 200 && last.status < 300) return this.finish(record, 'delivered', last);
      // Closed or reset while this attempt ran: no timer for a retry nothing would cancel (it kept the process alive).
      if (this.closed || generation !== this.generation) return this.finish(record, 'cancelled', last);
      const delay = schedule[attempt];
      if (delay === undefined) {
        this.opts.logger?.warn({ area: req.area, id: record.id, attempts: record.attempts.length }, 'sandbox callback given up');
        return this.finish(record, 'failed', last);
      }
      if (!(await this.sleep(delay))) return this.finish(record, 'cancelled', last);
    }
  }

  private async attempt(record: CallbackRecord, req: DispatchRequest, rawBody: string): Promise<{ status?: number; text?: string }> {
    const url = new URL(req.url);
    const contentType = 'application/json';
    const headers: Record<string, string> = { 'content-type': contentType };
    const add = (h: Record<string, string> | undefined) => {
      for (const [k, v] of Object.entries(h ?? {})) headers[k.toLowerCase()] = v;
    };
    add(req.headers);
    add(req.signer?.({ method: 'POST', url: req.url, path: url.pathname, rawBody, contentType }));
    record.headers = headers;

    const controller = new AbortController();
    this.inFlight.add(controller);
    const timer = setTimeout(() => controller.abort(new Error('timeout')), req.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const started = Date.now();
    const entry: CallbackAttempt = { at: new Date(started).toISOString(), durationMs: 0 };
    record.attempts.push(entry);
    try {
      const res = await nodeTransport(url, { method: 'POST', headers, body: rawBody, signal: controller.signal });
      entry.status = res.status;
      return { status: res.status, text: res.text };
    } catch (err) {
      entry.error = controller.signal.aborted ? `aborted: ${String(controller.signal.reason)}` : errorText(err);
      return {};
    } finally {
      entry.durationMs = Date.now() - started;
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }

  /** Resolves true after `ms`, or false at once if cancelled meanwhile. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const sleeper: Sleeper = {
        timer: setTimeout(() => {
          this.sleepers.delete(sleeper);
          resolve(true);
        }, ms),
        resolve,
      };
      this.sleepers.add(sleeper);
    });
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}
