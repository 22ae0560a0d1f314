// Hand-written request checks that collect every broken field, then answer one 400 naming them all
// in `details: [{field, description}]` (docs/conversation-wire.md "Base, auth, errors").
import { AreaError, type FieldViolation } from '../../core/errors.js';
import { invalidArgument } from '../../core/validation.js';
import { ULID_PATTERN } from './model.js';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

export class Fields {
  readonly violations: FieldViolation[] = [];

  constructor(private readonly part: 'body' | 'querystring' | 'params' = 'body') {}

  add(field: string, description: string): void {
    this.violations.push({ field, description });
  }

  /** `value` as an object whose keys are all `known`; unknown keys are violations. */
  object(value: unknown, path: string, known: readonly string[]): Record<string, unknown> | undefined {
    if (!isObject(value)) {
      this.add(path || 'body', value === undefined ? 'is required' : 'must be an object');
      return undefined;
    }
    for (const key of Object.keys(value)) if (!known.includes(key)) this.add(join(path, key), 'is unknown');
    return value;
  }

  string(
    obj: Record<string, unknown>,
    key: string,
    path: string,
    o: { required?: boolean; min?: number; max?: number; pattern?: RegExp; what?: string } = {},
  ): string | undefined {
    const field = join(path, key);
    const value = obj[key];
    if (value === undefined || value === null) {
      if (o.required) this.add(field, 'is required');
      return undefined;
    }
    if (typeof value !== 'string') return this.fail(field, 'must be a string');
    if (o.min !== undefined && value.length < o.min) return this.fail(field, o.min === 1 ? 'must not be empty' : `must be at least ${o.min} characters`);
    if (o.max !== undefined && value.length > o.max) return this.fail(field, `must be at most ${o.max} characters`);
    if (o.pattern && !o.pattern.test(value)) return this.fail(field, `must be ${o.what ?? `like ${String(o.pattern)}`}`);
    return value;
  }

  ulid(obj: Record<string, unknown>, key: string, path: string, required = true): string | undefined {
    return this.string(obj, key, path, { required, pattern: ULID_PATTERN, what: 'a ULID' })?.toUpperCase();
  }

  url(obj: Record<string, unknown>, key: string, path: string, required = true): string | undefined {
    const s = this.string(obj, key, path, { required, max: 2048 });
    if (s === undefined) return undefined;
    if (!isHttpUrl(s)) return this.fail(join(path, key), 'must be an absolute http or https URL');
    return s;
  }

  integer(obj: Record<string, unknown>, key: string, path: string, o: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    const field = join(path, key);
    const value = obj[key];
    if (value === undefined || value === null) {
      if (o.required) this.add(field, 'is required');
      return undefined;
    }
    if (typeof value !== 'number' || !Number.isInteger(value)) return this.fail(field, 'must be an integer');
    if ((o.min !== undefined && value < o.min) || (o.max !== undefined && value > o.max)) {
      return this.fail(field, `must be between ${o.min ?? '-inf'} and ${o.max ?? 'inf'}`);
    }
    return value;
  }

  boolean(obj: Record<string, unknown>, key: string, path: string): boolean | undefined {
    const value = obj[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') return this.fail(join(path, key), 'must be a boolean');
    return value;
  }

  array(obj: Record<string, unknown>, key: string, path: string, o: { required?: boolean; min?: number; max?: number } = {}): unknown[] | undefined {
    const field = join(path, key);
    const value = obj[key];
    if (value === undefined || value === null) {
      if (o.required) this.add(field, 'is required');
      return undefined;
    }
    if (!Array.isArray(value)) return this.fail(field, 'must be an array');
    if (o.min !== undefined && value.length < o.min) return this.fail(field, `must have at least ${o.min} item${o.min === 1 ? '' : 's'}`);
    if (o.max !== undefined && value.length > o.max) return this.fail(field, `must have at most ${o.max} items`);
    return value;
  }

  oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T | undefined {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    return this.fail(field, `must be one of ${allowed.join(', ')}`);
  }

  /** Throws the 400 when anything was added. */
  check(): void {
    if (this.violations.length > 0) throw invalidArgument(this.violations, this.part);
  }

  private fail(field: string, description: string): undefined {
    this.add(field, description);
    return undefined;
  }
}

export { join };

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export const notFound = (message: string) => new AreaError(404, message);
