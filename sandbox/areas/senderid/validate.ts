// Validation of requests against a policy, with the platform's reasons: one violation per broken
// item, each naming the field (dotted path) and the rule (docs/senderid-wire.md "Policy requirements").
import { AreaError } from '../../core/errors.js';
import { Fields, isObject } from '../../core/fields.js';
import type { RequestDetail } from './model.js';
import type { PolicyField as Field, Policy } from '../../../common/wire/senderid.js';

/**
 * A validator whose 400 names each field and the rule it breaks ({field, rule, description}; the OAuth error family
 * passes details through as they are), summed up as `<what>: <field>: <description>; ...`.
 */
export const violations = () =>
  new Fields({
    refuse: (list, what = 'Registration validation error') =>
      new AreaError(400, `${what}: ${list.map((v) => `${v.field}: ${v.description}`).join('; ')}`, { details: list }),
  });

function checkValue(v: Fields, path: string, field: Field, value: unknown): void {
  if (value === undefined || value === null || value === '') {
    if (field.required) v.add(path, `${field.label} is required`, 'required');
    return;
  }
  if (typeof value !== 'string') {
    v.add(path, `${field.label} must be a string`, 'type');
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
    if (!ok) v.add(path, `${field.label}: ${rule.message}`, rule.rule);
  }
}

/** Merges one section's array of objects into one map (later keys win); reports a malformed section. */
function section(v: Fields, path: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return {};
  if (!Array.isArray(value) || !value.every(isObject)) {
    v.add(path, 'must be an array of objects', 'type');
    return undefined;
  }
  return Object.assign({}, ...value) as Record<string, unknown>;
}

/** Checks `requestDetails` against the policy; returns them normalised (both sections present). */
export function checkRequestDetails(v: Fields, policy: Policy, value: unknown): RequestDetail[] {
  if (!Array.isArray(value) || value.length === 0) {
    v.add('requestDetails', 'requestDetails must be a non-empty array', value === undefined ? 'required' : 'type');
    return [];
  }
  const out: RequestDetail[] = [];
  value.forEach((entry, i) => {
    const base = `requestDetails[${i}]`;
    if (!isObject(entry)) {
      v.add(base, 'must be an object', 'type');
      return;
    }
    for (const key of Object.keys(entry)) {
      if (key !== 'senderIdDetails' && key !== 'additionalDetails') v.add(`${base}.${key}`, `${key} is not a known field`, 'unknownField');
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
        for (const key of Object.keys(values)) v.add(`${base}.${name}.${key}`, 'the platform assigns the sender ID for this policy', 'notAllowed');
        continue;
      }
      for (const f of fields) checkValue(v, `${base}.${name}.${f.key}`, f, values[f.key]);
      for (const key of Object.keys(values)) {
        if (!fields.some((f) => f.key === key)) v.add(`${base}.${name}.${key}`, `${key} is not a field of policy ${policy.id}`, 'unknownField');
      }
    }
    out.push({
      senderIdDetails: (entry.senderIdDetails as Record<string, unknown>[] | undefined) ?? [],
      additionalDetails: (entry.additionalDetails as Record<string, unknown>[] | undefined) ?? [],
    });
  });
  return out;
}

export function optionalString(v: Fields, body: Record<string, unknown>, key: string, opts: { max?: number; pattern?: RegExp } = {}): string | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) {
    v.add(key, `${key} must be a non-empty string`, 'type');
    return undefined;
  }
  if (opts.max !== undefined && value.length > opts.max) v.add(key, `${key} must be at most ${opts.max} characters`, 'maxLength');
  if (opts.pattern && !opts.pattern.test(value)) v.add(key, `${key} has the wrong format`, 'pattern');
  return value;
}

export function optionalStrings(v: Fields, body: Record<string, unknown>, key: string): string[] | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) {
    v.add(key, `${key} must be an array of strings`, 'type');
    return undefined;
  }
  return value as string[];
}

export function unknownKeys(v: Fields, body: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(body)) if (!known.includes(key)) v.add(key, `${key} is not a known field`, 'unknownField');
}

/** The body as an object, or a 400 naming `body`. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (isObject(body)) return body;
  const v = violations();
  v.add('body', 'the body must be a JSON object', body === undefined ? 'required' : 'type');
  v.check('Invalid request');
  return {};
}

export const notFound = (what: string, id: string) => new AreaError(404, `${what} ${id} not found`);
export const conflict = (message: string) => new AreaError(409, message);
