// Checks of start and report bodies by hand rather than by schema, because the platform answers
// missing parameters (40002) apart from invalid ones (40001) and names the field in `message`.
import type { FastifyRequest } from 'fastify';
import { AreaError } from '../../core/errors.js';
import { requestState } from '../../core/request-state.js';
import {
  CODE_LENGTH,
  SMS_CODE_TYPES as CODE_TYPES,
  VERIFICATION_METHODS as METHODS,
  type SmsCodeType as CodeType,
  type VerificationMethod,
} from '../../../common/wire/verification.js';

export const ERROR_CODES = { invalid: 40001, missing: 40002, json: 40003, denied: 40300 } as const;

const E164 = /^\+\d{8,15}$/;
const EXPIRY = /^(\d{2}):([0-5]\d):([0-5]\d)$/;
const REPORT_KEYS = { sms: 'sms', flashcall: 'flashCall', callout: 'callout', whatsapp: 'whatsapp' } as const;
/** A locale as the SMS options take it: a language-region identifier (the platform accepts a subset). */
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Collects problems; missing parameters win over invalid ones when both occur. */
class Problems {
  private readonly missing: string[] = [];
  private readonly invalid: string[] = [];

  need(o: Obj, key: string, field: string): boolean {
    if (o[key] !== undefined) return true;
    this.missing.push(field);
    return false;
  }

  bad(field: string, description: string): void {
    this.invalid.push(`${field}: ${description}`);
  }

  only(o: Obj, allowed: readonly string[], prefix = ''): void {
    for (const key of Object.keys(o)) if (!allowed.includes(key)) this.bad(`${prefix}${key}`, 'unknown field');
  }

  string(o: Obj, key: string, field: string, max: number): string | undefined {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v.length === 0 || v.length > max) this.bad(field, `must be a string of 1 to ${max} characters`);
    return typeof v === 'string' ? v : undefined;
  }

  error(): AreaError | undefined {
    if (this.missing.length) {
      return new AreaError(400, this.missing.map((f) => `${f}: missing parameter`).join('; '), { code: ERROR_CODES.missing });
    }
    if (this.invalid.length) return new AreaError(400, this.invalid.join('; '), { code: ERROR_CODES.invalid });
    return undefined;
  }

  throwIfAny(): void {
    const e = this.error();
    if (e) throw e;
  }
}

export function invalidParameter(field: string, description: string): AreaError {
  return new AreaError(400, `${field}: ${description}`, { code: ERROR_CODES.invalid });
}

/** 40003 for a body that claimed to be JSON and was not; call after authentication. */
export function assertJsonBody(request: FastifyRequest): void {
  const error = requestState(request).bodyParseError;
  if (error !== undefined) throw new AreaError(400, `Invalid JSON: ${error}`, { code: ERROR_CODES.json });
}

export function assertEndpoint(endpoint: string, field = 'endpoint'): void {
  if (!E164.test(endpoint)) throw invalidParameter(field, 'not a valid E.164 number');
}

export function assertMethod(method: string, field = 'method'): VerificationMethod {
  if (!(METHODS as readonly string[]).includes(method)) throw invalidParameter(field, `must be one of ${METHODS.join(', ')}`);
  return method as VerificationMethod;
}

export interface StartInput {
  endpoint: string;
  method: VerificationMethod;
  reference?: string;
  custom?: string;
  expiryMs?: number;
  codeType: CodeType;
  /** sms and whatsapp: characters in the code; absent, the code type's own length. */
  codeLength?: number;
  /** sms: the template's language asked for (`sms.locale`). */
  locale?: string;
}

export function parseStart(body: unknown): StartInput {
  const p = new Problems();
  const o = isObj(body) ? body : {};
  if (body !== undefined && !isObj(body)) p.bad('body', 'must be a JSON object');
  p.only(o, ['identity', 'method', 'reference', 'custom', 'sms', 'whatsapp']);
  let endpoint = '';
  if (p.need(o, 'identity', 'identity')) {
    const id = o.identity;
    if (!isObj(id)) p.bad('identity', 'must be an object');
    else {
      p.only(id, ['type', 'endpoint'], 'identity.');
      if (p.need(id, 'type', 'identity.type') && id.type !== 'number') p.bad('identity.type', 'must be "number"');
      if (p.need(id, 'endpoint', 'identity.endpoint')) {
        if (typeof id.endpoint === 'string' && E164.test(id.endpoint)) endpoint = id.endpoint;
        else p.bad('identity.endpoint', 'not a valid E.164 number');
      }
    }
  }
  let method: VerificationMethod = 'sms';
  if (p.need(o, 'method', 'method')) {
    if (typeof o.method === 'string' && (METHODS as readonly string[]).includes(o.method)) method = o.method as VerificationMethod;
    else p.bad('method', `must be one of ${METHODS.join(', ')}`);
  }
  const reference = p.string(o, 'reference', 'reference', 128);
  const custom = p.string(o, 'custom', 'custom', 4096);
  const options = o.whatsapp !== undefined ? parseWhatsAppOptions(p, o.whatsapp, method) : parseSmsOptions(p, o.sms, method);
  if (o.whatsapp !== undefined && o.sms !== undefined) p.bad('sms', 'not allowed with whatsapp');
  p.throwIfAny();
  return { endpoint, method, ...(reference !== undefined ? { reference } : {}), ...(custom !== undefined ? { custom } : {}), ...options };
}

type CodeOptions = { codeType: CodeType; codeLength?: number };

/** `codeType` and `codeLength` of `sms` or `whatsapp`. */
function parseCodeOptions(p: Problems, o: Obj, prefix: string): CodeOptions {
  let codeType: CodeType = 'Numeric';
  if (o.codeType !== undefined) {
    if ((CODE_TYPES as readonly unknown[]).includes(o.codeType)) codeType = o.codeType as CodeType;
    else p.bad(`${prefix}.codeType`, `must be one of ${CODE_TYPES.join(', ')}`);
  }
  const { min, max } = CODE_LENGTH;
  if (o.codeLength === undefined) return { codeType };
  if (Number.isInteger(o.codeLength) && (o.codeLength as number) >= min && (o.codeLength as number) <= max) {
    return { codeType, codeLength: o.codeLength as number };
  }
  p.bad(`${prefix}.codeLength`, `must be an integer from ${min} to ${max}`);
  return { codeType };
}

function parseWhatsAppOptions(p: Problems, whatsapp: unknown, method: VerificationMethod): CodeOptions {
  if (!isObj(whatsapp)) {
    p.bad('whatsapp', 'must be an object');
    return { codeType: 'Numeric' };
  }
  if (method !== 'whatsapp') p.bad('whatsapp', 'allowed only with method whatsapp');
  p.only(whatsapp, ['codeType', 'codeLength'], 'whatsapp.');
  return parseCodeOptions(p, whatsapp, 'whatsapp');
}

function parseSmsOptions(p: Problems, sms: unknown, method: VerificationMethod): { expiryMs?: number; locale?: string } & CodeOptions {
  if (sms === undefined) return { codeType: 'Numeric' };
  if (!isObj(sms)) {
    p.bad('sms', 'must be an object');
    return { codeType: 'Numeric' };
  }
  if (method !== 'sms') p.bad('sms', 'allowed only with method sms');
  p.only(sms, ['expiry', 'codeType', 'codeLength', 'locale'], 'sms.');
  let expiryMs: number | undefined;
  if (sms.expiry !== undefined) {
    const m = typeof sms.expiry === 'string' ? EXPIRY.exec(sms.expiry) : null;
    const seconds = m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : 0;
    if (seconds > 0) expiryMs = seconds * 1000;
    else p.bad('sms.expiry', 'must be a duration HH:MM:SS longer than zero');
  }
  let locale: string | undefined;
  if (sms.locale !== undefined) {
    if (typeof sms.locale === 'string' && LOCALE.test(sms.locale)) locale = sms.locale;
    else p.bad('sms.locale', 'must be a language-region identifier, e.g. es-ES');
  }
  return { ...(expiryMs !== undefined ? { expiryMs } : {}), ...(locale !== undefined ? { locale } : {}), ...parseCodeOptions(p, sms, 'sms') };
}

export type ReportInput = { method: 'sms' | 'callout' | 'whatsapp'; code: string } | { method: 'flashcall'; cli: string };

export function parseReport(body: unknown): ReportInput {
  const p = new Problems();
  const o = isObj(body) ? body : {};
  if (body !== undefined && !isObj(body)) p.bad('body', 'must be a JSON object');
  p.only(o, ['method', ...Object.values(REPORT_KEYS)]);
  if (!p.need(o, 'method', 'method')) throw p.error()!;
  const method = o.method;
  if (method !== 'sms' && method !== 'flashcall' && method !== 'callout' && method !== 'whatsapp') {
    p.bad('method', 'must be one of sms, flashcall, callout, whatsapp');
    throw p.error()!;
  }
  const key = REPORT_KEYS[method];
  const valueKey = method === 'flashcall' ? 'cli' : 'code';
  for (const other of Object.values(REPORT_KEYS)) if (other !== key && o[other] !== undefined) p.bad(other, `not allowed with method ${method}`);
  let value = '';
  if (p.need(o, key, key)) {
    const sub = o[key];
    if (!isObj(sub)) p.bad(key, 'must be an object');
    else {
      p.only(sub, [valueKey], `${key}.`);
      if (p.need(sub, valueKey, `${key}.${valueKey}`)) value = p.string(sub, valueKey, `${key}.${valueKey}`, 64) ?? '';
    }
  }
  p.throwIfAny();
  return method === 'flashcall' ? { method, cli: value } : { method, code: value };
}
