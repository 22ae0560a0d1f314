// Hand-written body checks for the provisioning area: every broken field becomes one
// validationErrors entry (enum errors list the valid values), all reported in one 400.
import type { FieldViolation } from '../../core/errors.js';
import { invalidInput } from './errors.js';

export type Json = Record<string, unknown>;

export const E164 = /^\+[1-9]\d{6,14}$/;
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export const COUNTRY = /^[A-Z]{2}$/;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const mustBeOneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

interface StringRule {
  required?: boolean;
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** What the pattern means, for the message. */
  patternText?: string;
  url?: boolean;
}

/** Collects violations over one request; field names are dotted paths (`components[0].example.sizeBytes`). */
export class Fields {
  readonly violations: FieldViolation[] = [];

  add(field: string, description: string): void {
    this.violations.push({ field, description });
  }

  /** The body itself must be an object; then unknown fields are refused. */
  body(value: unknown, allowed: readonly string[]): Json {
    if (!isObject(value)) {
      this.add('body', 'must be a JSON object');
      return {};
    }
    this.known(value, allowed, '');
    return value;
  }

  known(obj: Json, allowed: readonly string[], prefix: string): void {
    for (const k of Object.keys(obj)) if (!allowed.includes(k)) this.add(join(prefix, k), 'is unknown');
  }

  string(obj: Json, key: string, prefix: string, rule: StringRule = {}): string | undefined {
    const field = join(prefix, key);
    const v = obj[key];
    if (v === undefined || v === null) {
      if (rule.required) this.add(field, 'is required');
      return undefined;
    }
    if (typeof v !== 'string') return this.fail(field, 'must be a string');
    if (rule.min !== undefined && v.length < rule.min) {
      return this.fail(field, rule.min === 1 ? 'must not be empty' : `must be at least ${rule.min} characters`);
    }
    if (rule.max !== undefined && v.length > rule.max) return this.fail(field, `must be at most ${rule.max} characters`);
    if (rule.pattern && !rule.pattern.test(v)) return this.fail(field, rule.patternText ?? `must match ${rule.pattern.source}`);
    if (rule.url && !isHttpUrl(v)) return this.fail(field, 'must be an http or https URL');
    return v;
  }

  oneOf<T extends string>(obj: Json, key: string, prefix: string, values: readonly T[], required = false): T | undefined {
    const field = join(prefix, key);
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) this.add(field, `is required; ${mustBeOneOf(values)}`);
      return undefined;
    }
    if (typeof v !== 'string' || !values.includes(v as T)) return this.fail(field, mustBeOneOf(values));
    return v as T;
  }

  boolean(obj: Json, key: string, prefix: string): boolean | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') return this.fail(join(prefix, key), 'must be a boolean');
    return v;
  }

  integer(obj: Json, key: string, prefix: string, rule: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    const field = join(prefix, key);
    const v = obj[key];
    if (v === undefined || v === null) {
      if (rule.required) this.add(field, 'is required');
      return undefined;
    }
    if (typeof v !== 'number' || !Number.isInteger(v)) return this.fail(field, 'must be an integer');
    if (rule.min !== undefined && v < rule.min) return this.fail(field, `must be at least ${rule.min}`);
    if (rule.max !== undefined && v > rule.max) return this.fail(field, `must be at most ${rule.max}`);
    return v;
  }

  array(obj: Json, key: string, prefix: string, rule: { required?: boolean; min?: number; max?: number } = {}): unknown[] | undefined {
    const field = join(prefix, key);
    const v = obj[key];
    if (v === undefined || v === null) {
      if (rule.required) this.add(field, 'is required');
      return undefined;
    }
    if (!Array.isArray(v)) return this.fail(field, 'must be an array');
    if (rule.min !== undefined && v.length < rule.min) return this.fail(field, rule.min === 1 ? 'must not be empty' : `must have at least ${rule.min} items`);
    if (rule.max !== undefined && v.length > rule.max) return this.fail(field, `must have at most ${rule.max} items`);
    return v;
  }

  /** `allowed` undefined: any fields (the contract leaves the object open). */
  object(obj: Json, key: string, prefix: string, allowed: readonly string[] | undefined, required = false): Json | undefined {
    const field = join(prefix, key);
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) this.add(field, 'is required');
      return undefined;
    }
    if (!isObject(v)) return this.fail(field, 'must be an object');
    if (allowed) this.known(v, allowed, field);
    return v;
  }

  /** Throws the 400 invalid_input when anything was wrong. */
  check(): void {
    if (this.violations.length) throw invalidInput(this.violations);
  }

  private fail(field: string, description: string): undefined {
    this.add(field, description);
    return undefined;
  }
}

export function join(prefix: string, key: string | number): string {
  if (typeof key === 'number') return `${prefix}[${key}]`;
  return prefix ? `${prefix}.${key}` : key;
}
