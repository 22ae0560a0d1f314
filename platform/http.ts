// The one HTTP core every platform client uses: a keep-alive transport with a timeout, JSON/form bodies,
// typed errors for non-2xx answers, and an observer told how each call ended (metrics). It does not retry:
// Temporal's activity retry policy does, except for the single re-authentication after a 401 that the token flow requires.
// With a tracer, each call is a client span (`platform <area> <METHOD>`), a child of whatever span is active:
// in a worker the activity's, in the API the request's.
import { SpanKind, type Span, type Tracer } from '@opentelemetry/api';
import type { Logger } from '../common/logger.js';
import { PlatformError, platformErrorFromResponse, platformErrorFromTransport, type PlatformInterface } from './errors.js';
import { setHeader, type AuthRequest, type AuthStrategy } from './auth/strategy.js';
import { nodeTransport } from '../common/http-transport.js';
import { platformCallOf, type PlatformCall, type PlatformCallObserver } from './call-observer.js';
import { endPlatformCallSpan, platformCallSpan } from './call-span.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | undefined;

export interface PlatformRequest {
  /** Selects the error-body parser and labels errors. */
  area: PlatformInterface;
  method: HttpMethod;
  /** Absolute URL (the base address plus path). */
  url: string | URL;
  /** Undefined values are left out. */
  query?: Record<string, QueryValue>;
  /** Serialised once; these exact bytes are signed and sent. */
  json?: unknown;
  /** application/x-www-form-urlencoded body. */
  form?: Record<string, string>;
  headers?: Record<string, string>;
  auth?: AuthStrategy;
  /** Overrides the configured timeout for this request. */
  timeoutMs?: number;
  /** Caller cancellation (e.g. the activity's cancellation signal); aborts are rethrown as-is. */
  signal?: AbortSignal;
  /** A 2xx the area still calls a failure (MMS `status: Failure`): the error to throw, so it counts as one. */
  failureOf?: (res: PlatformResponse) => PlatformError | undefined;
  /** Non-2xx statuses that are this call's normal answer (a new subproject's 403 until usable): still thrown, counted `ok`. */
  expectedStatuses?: readonly number[];
}

export interface PlatformResponse<T = unknown> {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** Parsed JSON when the answer is JSON, the text otherwise, undefined when empty. */
  body: T;
}

export interface PlatformHttpOptions {
  timeoutMs: number;
  logger?: Logger;
  /** Told about every call once it has ended (metrics); must not throw. */
  onCall?: PlatformCallObserver | undefined;
  /** Each call a client span of this tracer (common/tracing.ts's tracerOf). */
  tracer?: Tracer | undefined;
}

/** What observed() needs to know of a call, for its count and its span. */
export type ObservedCall = Pick<PlatformRequest, 'signal' | 'expectedStatuses'> & { method?: HttpMethod; url?: string | URL };

export class PlatformHttp {
  readonly timeoutMs: number;
  readonly #logger: Logger | undefined;
  readonly #onCall: PlatformCallObserver | undefined;
  readonly #tracer: Tracer | undefined;

  constructor(opts: PlatformHttpOptions) {
    this.timeoutMs = opts.timeoutMs;
    this.#logger = opts.logger;
    this.#onCall = opts.onCall;
    this.#tracer = opts.tracer;
  }

  /** Sends the request; resolves with 2xx answers and throws a typed PlatformError otherwise. */
  async request<T = unknown>(req: PlatformRequest): Promise<PlatformResponse<T>> {
    return this.observed(req.area, () => this.#request<T>(req), {
      signal: req.signal,
      expectedStatuses: req.expectedStatuses,
      method: req.method,
      url: req.url,
    });
  }

  /** Runs one platform call and reports how it ended; for the few calls that cannot use request() (binary downloads). */
  async observed<T>(area: PlatformInterface, call: () => Promise<T>, opts: ObservedCall = {}): Promise<T> {
    if (!this.#tracer) return this.#counted(area, call, opts);
    const { name, options } = platformCallSpan(area, opts);
    return this.#tracer.startActiveSpan(name, { ...options, kind: SpanKind.CLIENT }, async (span: Span) => {
      try {
        const result = await this.#counted(area, call, opts);
        endPlatformCallSpan(span, opts, { result });
        return result;
      } catch (err) {
        endPlatformCallSpan(span, opts, { err });
        throw err;
      }
    });
  }

  async #counted<T>(area: PlatformInterface, call: () => Promise<T>, opts: ObservedCall): Promise<T> {
    if (!this.#onCall) return call();
    const started = performance.now();
    let result: T;
    try {
      result = await call();
    } catch (err) {
      const expected = err instanceof PlatformError && err.httpStatus !== undefined && opts.expectedStatuses?.includes(err.httpStatus);
      this.#report(platformCallOf(area, started, expected ? undefined : err, opts.signal));
      throw err;
    }
    this.#report(platformCallOf(area, started));
    return result;
  }

  #report(call: PlatformCall): void {
    try {
      this.#onCall?.(call);
    } catch (err) {
      // Counting must never fail a platform call.
      this.#logger?.warn({ err }, 'platform call observer failed');
    }
  }

  async #request<T>(req: PlatformRequest): Promise<PlatformResponse<T>> {
    const url = new URL(req.url);
    for (const [name, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }

    const baseHeaders: Record<string, string> = {};
    setHeader(baseHeaders, 'accept', 'application/json');
    let body: string | undefined;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      setHeader(baseHeaders, 'content-type', 'application/json; charset=utf-8');
    } else if (req.form !== undefined) {
      body = new URLSearchParams(req.form).toString();
      setHeader(baseHeaders, 'content-type', 'application/x-www-form-urlencoded');
    }
    for (const [name, value] of Object.entries(req.headers ?? {})) setHeader(baseHeaders, name, value);

    let res = await this.#send(req, url, baseHeaders, body);
    if (res.status === 401 && req.auth?.onUnauthorized && (await req.auth.onUnauthorized(res.sent))) {
      res = await this.#send(req, url, baseHeaders, body);
    }

    if (res.status < 200 || res.status > 299) {
      throw platformErrorFromResponse({ area: req.area, status: res.status, headers: res.headers, body: res.body });
    }
    const answer = { status: res.status, headers: res.headers, body: res.body as T };
    const failure = req.failureOf?.(answer);
    if (failure) throw failure;
    return answer;
  }

  async #send(req: PlatformRequest, url: URL, baseHeaders: Record<string, string>, body: string | undefined) {
    // Fresh headers per attempt so a retried request is re-authenticated (new token, new timestamp).
    const sent: AuthRequest = { method: req.method, url, headers: { ...baseHeaders }, body };
    await req.auth?.apply(sent);

    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const started = Date.now();
    try {
      const response = await nodeTransport(url, { method: req.method, headers: sent.headers, ...(body !== undefined ? { body } : {}), signal });
      const { headers } = response;
      const parsed = parseBody(response.text, headers['content-type']);
      // Host and status only: paths can carry phone numbers and queries can carry tokens.
      this.#logger?.debug({ area: req.area, method: req.method, host: url.host, status: response.status, ms: Date.now() - started }, 'platform request');
      return { status: response.status, headers, body: parsed, sent };
    } catch (err) {
      if (req.signal?.aborted) throw err;
      this.#logger?.debug({ area: req.area, method: req.method, host: url.host, ms: Date.now() - started }, 'platform request failed');
      throw platformErrorFromTransport(req.area, err, timeoutMs);
    }
  }
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  const looksJson = contentType?.includes('json') || /^\s*[{[]/.test(text);
  if (!looksJson) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
