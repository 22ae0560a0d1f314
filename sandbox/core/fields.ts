// The one field validator of the sandbox's hand-checked bodies: it collects every broken field of a request (field
// names are dotted paths: `components[0].example.sizeBytes`), then check() answers one 400 naming them all. What
// that 400 looks like is the area's (its error family, its summary); so are the few texts the platform's interfaces
// word differently (Wording). A violation is {field, description}, or {field, rule, description} where the area
// names the rule broken (sender ID).
import type { FieldViolation } from './errors.js';

export type Json = Record<string, unknown>;

export interface Violation extends FieldViolation {
  rule?: string;
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Crockford base 32, 26 characters, the first at most 7 (48 bits of time); either case. */
const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;

export const mustBeOneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

export function join(prefix: string, key: string | number): string {
  if (typeof key === 'number') return `${prefix}[${key}]`;
  return prefix ? `${prefix}.${key}` : key;
}

/**
 * Where the interfaces' texts differ. 'conversation': integer bounds as "must be between 1 and 10", arrays "must
 * have at least 1 item", a null boolean refused, a body that is not an object "is required" / "must be an object".
 * 'provisioning': "must be at least 1" / "must be at most 10", "must not be empty", a null boolean ignored, "must be
 * a JSON object".
 */
type Wording = 'conversation' | 'provisioning';

export interface FieldsOptions {
  /** The area's 400 for these violations; `what` is the caller's summary when it gives one. */
  refuse: (violations: Violation[], what?: string) => Error;
  wording?: Wording;
}

interface StringRule {
  required?: boolean;
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** The whole description when the pattern does not match; default `must match <pattern>`. */
  patternText?: string;
  /** Must be an absolute http or https URL. */
  url?: boolean;
}

interface CountRule {
  required?: boolean;
  min?: number;
  max?: number;
}

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export class Fields {
  readonly violations: Violation[] = [];
  private readonly wording: Wording;

  constructor(private readonly opts: FieldsOptions) {
    this.wording = opts.wording ?? 'provisioning';
  }

  add(field: string, description: string, rule?: string): void {
    this.violations.push(rule === undefined ? { field, description } : { field, rule, description });
  }

  /** Throws the area's 400 when anything was added. */
  check(what?: string): void {
    if (this.violations.length > 0) throw this.opts.refuse(this.violations, what);
  }

  /** The body itself must be an object (else {}); then unknown fields are refused. */
  body(value: unknown, allowed: readonly string[]): Json {
    if (this.wording === 'conversation') return this.record(value, '', allowed) ?? {};
    if (!isObject(value)) {
      this.add('body', 'must be a JSON object');
      return {};
    }
    this.known(value, allowed, '');
    return value;
  }

  /** `value` as an object whose keys are all `allowed` (unknown keys are violations); `path` names it ('' the body). */
  record(value: unknown, path: string, allowed: readonly string[]): Json | undefined {
    if (!isObject(value)) return this.fail(path || 'body', value === undefined ? 'is required' : 'must be an object');
    this.known(value, allowed, path);
    return value;
  }

  known(obj: Json, allowed: readonly string[], prefix: string): void {
    for (const k of Object.keys(obj)) if (!allowed.includes(k)) this.add(join(prefix, k), 'is unknown');
  }

  /** obj[key] as an object; `allowed` undefined: any fields (the contract leaves the object open). */
  object(obj: Json, key: string, prefix: string, allowed: readonly string[] | undefined, required = false): Json | undefined {
    const field = join(prefix, key);
    const v = this.present(obj, key, field, required);
    if (v === undefined) return undefined;
    if (!isObject(v)) return this.fail(field, 'must be an object');
    if (allowed) this.known(v, allowed, field);
    return v;
  }

  string(obj: Json, key: string, prefix: string, rule: StringRule = {}): string | undefined {
    const field = join(prefix, key);
    const v = this.present(obj, key, field, rule.required);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return this.fail(field, 'must be a string');
    if (rule.min !== undefined && v.length < rule.min) {
      return this.fail(field, rule.min === 1 ? 'must not be empty' : `must be at least ${rule.min} characters`);
    }
    if (rule.max !== undefined && v.length > rule.max) return this.fail(field, `must be at most ${rule.max} characters`);
    if (rule.pattern && !rule.pattern.test(v)) return this.fail(field, rule.patternText ?? `must match ${rule.pattern.source}`);
    if (rule.url && !isHttpUrl(v)) {
      return this.fail(field, this.wording === 'conversation' ? 'must be an absolute http or https URL' : 'must be an http or https URL');
    }
    return v;
  }

  /** A ULID, upper-cased. */
  ulid(obj: Json, key: string, prefix: string, required = true): string | undefined {
    return this.string(obj, key, prefix, { required, pattern: ULID, patternText: 'must be a ULID' })?.toUpperCase();
  }

  url(obj: Json, key: string, prefix: string, required = true): string | undefined {
    return this.string(obj, key, prefix, { required, max: 2048, url: true });
  }

  /** obj[key], one of `values`. */
  oneOf<T extends string>(obj: Json, key: string, prefix: string, values: readonly T[], required = false): T | undefined {
    const field = join(prefix, key);
    const v = obj[key];
    if (v === undefined || v === null) {
      if (required) this.add(field, `is required; ${mustBeOneOf(values)}`);
      return undefined;
    }
    return this.member(v, field, values);
  }

  /** `value` (already read) one of `allowed`. */
  member<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    return this.fail(field, mustBeOneOf(allowed));
  }

  boolean(obj: Json, key: string, prefix: string): boolean | undefined {
    const v = obj[key];
    if (v === undefined || (v === null && this.wording === 'provisioning')) return undefined;
    if (typeof v !== 'boolean') return this.fail(join(prefix, key), 'must be a boolean');
    return v;
  }

  integer(obj: Json, key: string, prefix: string, rule: CountRule = {}): number | undefined {
    const field = join(prefix, key);
    const v = this.present(obj, key, field, rule.required);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v)) return this.fail(field, 'must be an integer');
    const low = rule.min !== undefined && v < rule.min;
    const high = rule.max !== undefined && v > rule.max;
    if (this.wording === 'conversation' && (low || high)) return this.fail(field, `must be between ${rule.min ?? '-inf'} and ${rule.max ?? 'inf'}`);
    if (low) return this.fail(field, `must be at least ${rule.min}`);
    if (high) return this.fail(field, `must be at most ${rule.max}`);
    return v;
  }

  array(obj: Json, key: string, prefix: string, rule: CountRule = {}): unknown[] | undefined {
    const field = join(prefix, key);
    const v = this.present(obj, key, field, rule.required);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) return this.fail(field, 'must be an array');
    if (rule.min !== undefined && v.length < rule.min) {
      const one = this.wording === 'conversation' ? 'must have at least 1 item' : 'must not be empty';
      return this.fail(field, rule.min === 1 ? one : `must have at least ${rule.min} items`);
    }
    if (rule.max !== undefined && v.length > rule.max) return this.fail(field, `must have at most ${rule.max} items`);
    return v;
  }

  /** obj[key] unless absent (undefined or null), when a required one is a violation. */
  private present(obj: Json, key: string, field: string, required: boolean | undefined): unknown {
    const v = obj[key];
    if (v !== undefined && v !== null) return v;
    if (required) this.add(field, 'is required');
    return undefined;
  }

  private fail(field: string, description: string): undefined {
    this.add(field, description);
    return undefined;
  }
}
