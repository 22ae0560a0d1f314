// Verification interface (area B, v1): start a verification, report the code or CLI, read its status
// by ID, by identity and method, or by our own reference. Application signed requests.
import type { PlatformHttp } from '../http.js';
import { PlatformUnavailableError } from '../errors.js';
import type { AuthStrategy } from '../auth/strategy.js';
import {
  VERIFICATION_METHODS,
  VERIFICATION_STATUSES,
  type ReportResult,
  type SmsCodeType,
  type StartVerificationRequest,
  type StartVerificationResponse,
  type VerificationMethod,
  type VerificationReport,
  type VerificationSource,
  type VerificationStatus,
  type VerificationStatusValue,
} from '../../common/wire/verification.js';

// What relayflow's workflows import from the client (they keep their import paths).
export type { ReportResult, VerificationStatus } from '../../common/wire/verification.js';

export interface StartVerificationResult {
  verification: StartVerificationResponse;
  /** The language the platform actually used (response header Content-Language). */
  contentLanguage?: string;
}

export interface VerificationClientOptions {
  http: PlatformHttp;
  /** urls.verification; the client appends `/verification/v1/verifications...`. */
  baseUrl: string;
  /** ApplicationSignedAuth in production; BasicAuth is accepted for prototyping. */
  auth: AuthStrategy;
}

const METHODS: ReadonlySet<string> = new Set(VERIFICATION_METHODS);
const STATES: ReadonlySet<string> = new Set(VERIFICATION_STATUSES);

export class VerificationClient {
  readonly #http: PlatformHttp;
  readonly #base: string;
  readonly #auth: AuthStrategy;

  constructor(opts: VerificationClientOptions) {
    this.#http = opts.http;
    this.#base = `${opts.baseUrl.replace(/\/+$/, '')}/verification/v1/verifications`;
    this.#auth = opts.auth;
  }

  /** Every segment is URL-encoded, so the `+` of an E.164 number travels as `%2B`. */
  #url(...segments: string[]): string {
    return segments.length === 0 ? this.#base : `${this.#base}/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
  }

  /**
   * Starts a verification. `language` is sent as Accept-Language (SMS template language); the platform
   * may choose another (application default, carrier rules) and says which in `contentLanguage`.
   * A 403 errorCode 40300 (denied by the platform or the verification callback) is a PlatformDeniedError.
   */
  async start(req: StartVerificationRequest, opts: { language?: string } = {}): Promise<StartVerificationResult> {
    const res = await this.#http.request({
      area: 'verification',
      method: 'POST',
      url: this.#url(),
      json: startBody(req),
      headers: opts.language ? { 'accept-language': opts.language } : undefined,
      auth: this.#auth,
    });
    const verification = parseStartResponse(res.body);
    const contentLanguage = res.headers['content-language'];
    return contentLanguage ? { verification, contentLanguage } : { verification };
  }

  /** Reports the code / CLI for a verification ID. */
  async reportById(id: string, report: VerificationReport): Promise<ReportResult> {
    return this.#report(this.#url('id', id), report);
  }

  /** Reports the code / CLI for the newest verification of a number (E.164). */
  async reportByIdentity(endpoint: string, report: VerificationReport): Promise<ReportResult> {
    return this.#report(this.#url('number', endpoint), report);
  }

  async statusById(id: string): Promise<VerificationStatus> {
    return this.#status(this.#url('id', id));
  }

  /** The newest verification of that number with that method. */
  async statusByIdentity(method: VerificationMethod, endpoint: string): Promise<VerificationStatus> {
    return this.#status(this.#url(method, 'number', endpoint));
  }

  /** 404 (PlatformNotFoundError) when no verification carries the reference. */
  async statusByReference(reference: string): Promise<VerificationStatus> {
    return this.#status(this.#url('reference', reference));
  }

  async #report(url: string, report: VerificationReport): Promise<ReportResult> {
    const res = await this.#http.request({ area: 'verification', method: 'PUT', url, json: reportBody(report), auth: this.#auth });
    return parseReportResult(res.body);
  }

  async #status(url: string): Promise<VerificationStatus> {
    const res = await this.#http.request({ area: 'verification', method: 'GET', url, auth: this.#auth });
    return parseStatus(res.body);
  }
}

// ---------------------------------------------------------------------------------------------
// Bodies out: only the fields of the contract (the platform rejects unknown top-level fields)
// ---------------------------------------------------------------------------------------------

function startBody(req: StartVerificationRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    identity: { type: req.identity.type, endpoint: req.identity.endpoint },
    method: req.method,
  };
  if (req.reference !== undefined) body.reference = req.reference;
  if (req.custom !== undefined) body.custom = req.custom;
  if (req.sms !== undefined) {
    const { expiry, codeType, codeLength, locale } = req.sms;
    body.sms = compact({ expiry, codeType, codeLength, locale });
  }
  if (req.whatsapp !== undefined) {
    const { codeType, codeLength } = req.whatsapp;
    body.whatsapp = compact({ codeType, codeLength });
  }
  return body;
}

function reportBody(report: VerificationReport): VerificationReport {
  switch (report.method) {
    case 'sms':
      return { method: 'sms', sms: { code: report.sms.code } };
    case 'flashcall':
      return { method: 'flashcall', flashCall: { cli: report.flashCall.cli } };
    case 'callout':
      return { method: 'callout', callout: { code: report.callout.code } };
    case 'whatsapp':
      return { method: 'whatsapp', whatsapp: { code: report.whatsapp.code } };
  }
}

// ---------------------------------------------------------------------------------------------
// Bodies in: checked for what callers rely on; a 2xx that is not the expected shape is an error
// ---------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const optStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const optNum = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Retryable: a garbled answer (a proxy's page, a truncated body) is transient, and every read is safe to repeat. */
function invalidResponse(what: string): PlatformUnavailableError {
  return new PlatformUnavailableError({ area: 'verification', httpStatus: 200, code: 'INVALID_RESPONSE', message: `verification: unexpected ${what} answer` });
}

function baseFields(body: unknown, what: string): { o: Obj; id: string; method: VerificationMethod } {
  if (!isObj(body) || typeof body.id !== 'string' || body.id === '' || typeof body.method !== 'string' || !METHODS.has(body.method)) {
    throw invalidResponse(what);
  }
  return { o: body, id: body.id, method: body.method as VerificationMethod };
}

function state(o: Obj, what: string): VerificationStatusValue {
  if (typeof o.status !== 'string' || !STATES.has(o.status)) throw invalidResponse(what);
  return o.status as VerificationStatusValue;
}

function source(v: unknown): VerificationSource | undefined {
  return v === 'intercepted' || v === 'manual' ? v : undefined;
}

/** Drops undefined values so results compare and serialise cleanly. */
function compact<T extends object>(o: T): T {
  for (const key of Object.keys(o) as Array<keyof T>) {
    if (o[key] === undefined) delete o[key];
  }
  return o;
}

function parseStartResponse(body: unknown): StartVerificationResponse {
  const { o, id, method } = baseFields(body, 'start');
  const out: StartVerificationResponse = { id, method };
  if (Array.isArray(o._links)) {
    out._links = o._links.filter(isObj).map((l) => compact({ rel: optStr(l.rel), href: optStr(l.href), method: optStr(l.method) }));
  }
  if (isObj(o.sms)) {
    out.sms = compact({
      template: optStr(o.sms.template) ?? '',
      interceptionTimeout: optNum(o.sms.interceptionTimeout) ?? 0,
      codeType: optStr(o.sms.codeType) as SmsCodeType | undefined,
    });
  }
  if (isObj(o.flashCall)) {
    out.flashCall = {
      cliFilter: optStr(o.flashCall.cliFilter) ?? '',
      interceptionTimeout: optNum(o.flashCall.interceptionTimeout) ?? 0,
      reportTimeout: optNum(o.flashCall.reportTimeout) ?? 0,
      denyCallAfter: optNum(o.flashCall.denyCallAfter) ?? 0,
    };
  }
  if (isObj(o.callout)) {
    out.callout = {
      startPollingAfter: optNum(o.callout.startPollingAfter) ?? 0,
      stopPollingAfter: optNum(o.callout.stopPollingAfter) ?? 0,
      pollingInterval: optNum(o.callout.pollingInterval) ?? 0,
    };
  }
  if (isObj(o.seamless)) out.seamless = { targetUri: optStr(o.seamless.targetUri) ?? '' };
  if (isObj(o.whatsapp)) out.whatsapp = compact({ codeType: optStr(o.whatsapp.codeType) as SmsCodeType | undefined });
  return out;
}

function parseReportResult(body: unknown): ReportResult {
  const { o, id, method } = baseFields(body, 'report');
  return compact({ id, method, status: state(o, 'report'), reason: optStr(o.reason), reference: optStr(o.reference), source: source(o.source) });
}

function parseStatus(body: unknown): VerificationStatus {
  const { o, id, method } = baseFields(body, 'status');
  const identity = isObj(o.identity) ? o.identity : {};
  return compact({
    id,
    method,
    status: state(o, 'status'),
    reason: optStr(o.reason),
    reference: optStr(o.reference),
    custom: optStr(o.custom),
    identity: { type: 'number' as const, endpoint: optStr(identity.endpoint) ?? '' },
    source: source(o.source),
    language: optStr(o.language),
    createdAt: optStr(o.createdAt),
  });
}
