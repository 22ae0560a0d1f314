// Validation of requests against a policy, with the platform's reasons: one violation per broken
// item, each naming the field (dotted path) and the rule (docs/senderid-wire.md "Policy requirements").
import { AreaError, type FieldViolation } from '../../core/errors.js';
import type { Field, Policy, RequestDetail } from './model.js';

export type Rule = 'required' | 'pattern' | 'minLength' | 'maxLength' | 'enum' | 'unknownField' | 'notAllowed' | 'mimeType' | 'maxSize' | 'type' | 'range';

/** The core's FieldViolation plus the rule; the OAuth error family passes details through as they are. */
export interface RuleViolation extends FieldViolation {
  rule: Rule;
}

export class Violations {
  readonly list: RuleViolation[] = [];

  add(field: string, rule: Rule, description: string): void {
    this.list.push({ field, rule, description });
  }

  /** Throws the 400 when anything was added. */
  check(what = 'Registration validation error'): void {
    if (this.list.length === 0) return;
    const text = this.list.map((v) => `${v.field}: ${v.description}`).join('; ');
    throw new AreaError(400, `${what}: ${text}`, { details: this.list });
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkValue(v: Violations, path: string, field: Field, value: unknown): void {
  if (value === undefined || value === null || value === '') {
    if (field.required) v.add(path, 'required', `${field.label} is required`);
    return;
  }
  if (typeof value !== 'string') {
    v.add(path, 'type', `${field.label} must be a string`);
    return;
  }
  for (const rule of field.validations) {
    const ok =
      rule.rule === 'pattern'
        ? new RegExp(rule.value as string).test(value)
        : rule.rule === 'minLength'
          ? value.length >= (rule.value as number)
          : rule.rule === 'maxLength'
            ? value.length <= (rule.value as number)
            : (rule.value as string[]).includes(value);
    if (!ok) v.add(path, rule.rule, `${field.label}: ${rule.message}`);
  }
}

/** Merges one section's array of objects into one map (later keys win); reports a malformed section. */
function section(v: Violations, path: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return {};
  if (!Array.isArray(value) || !value.every(isObject)) {
    v.add(path, 'type', 'must be an array of objects');
    return undefined;
  }
  return Object.assign({}, ...value) as Record<string, unknown>;
}

/** Checks `requestDetails` against the policy; returns them normalised (both sections present). */
export function checkRequestDetails(v: Violations, policy: Policy, value: unknown): RequestDetail[] {
  if (!Array.isArray(value) || value.length === 0) {
    v.add('requestDetails', value === undefined ? 'required' : 'type', 'requestDetails must be a non-empty array');
    return [];
  }
  const out: RequestDetail[] = [];
  value.forEach((entry, i) => {
    const base = `requestDetails[${i}]`;
    if (!isObject(entry)) {
      v.add(base, 'type', 'must be an object');
      return;
    }
    for (const key of Object.keys(entry)) {
      if (key !== 'senderIdDetails' && key !== 'additionalDetails') v.add(`${base}.${key}`, 'unknownField', `${key} is not a known field`);
    }
    const merged = {
      senderIdDetails: section(v, `${base}.senderIdDetails`, entry.senderIdDetails),
      additionalDetails: section(v, `${base}.additionalDetails`, entry.additionalDetails),
    };
    for (const name of ['senderIdDetails', 'additionalDetails'] as const) {
      const values = merged[name];
      if (!values) continue;
      const fields = policy.fields.filter((f) => f.section === name);
      if (name === 'senderIdDetails' && policy.senderIdAssigned) {
        for (const key of Object.keys(values)) v.add(`${base}.${name}.${key}`, 'notAllowed', 'the platform assigns the sender ID for this policy');
        continue;
      }
      for (const f of fields) checkValue(v, `${base}.${name}.${f.key}`, f, values[f.key]);
      for (const key of Object.keys(values)) {
        if (!fields.some((f) => f.key === key)) v.add(`${base}.${name}.${key}`, 'unknownField', `${key} is not a field of policy ${policy.id}`);
      }
    }
    out.push({
      senderIdDetails: (entry.senderIdDetails as Record<string, unknown>[] | undefined) ?? [],
      additionalDetails: (entry.additionalDetails as Record<string, unknown>[] | undefined) ?? [],
    });
  });
  return out;
}

export function optionalString(v: Violations, body: Record<string, unknown>, key: string, opts: { max?: number; pattern?: RegExp } = {}): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) {
    v.add(key, 'type', `${key} must be a non-empty string`);
    return undefined;
  }
  if (opts.max !== undefined && value.length > opts.max) v.add(key, 'maxLength', `${key} must be at most ${opts.max} characters`);
  if (opts.pattern && !opts.pattern.test(value)) v.add(key, 'pattern', `${key} has the wrong format`);
  return value;
}

export function optionalStrings(v: Violations, body: Record<string, unknown>, key: string): string[] | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) {
    v.add(key, 'type', `${key} must be an array of strings`);
    return undefined;
  }
  return value as string[];
}

export function unknownKeys(v: Violations, body: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(body)) if (!known.includes(key)) v.add(key, 'unknownField', `${key} is not a known field`);
}

/** The body as an object, or a 400 naming `body`. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (isObject(body)) return body;
  const v = new Violations();
  v.add('body', body === undefined ? 'required' : 'type', 'the body must be a JSON object');
  v.check('Invalid request');
  return {};
}

export const notFound = (what: string, id: string) => new AreaError(404, `${what} ${id} not found`);
export const conflict = (message: string) => new AreaError(409, message);
