// Shared by the provisioning activities: the look-ups that make creates idempotent under Temporal retries.
import { isDeepStrictEqual } from 'node:util';
import { PlatformConflictError } from './errors.js';

/** Lists are read with the largest page the platform allows, so a look-up costs few requests. */
export const LOOKUP_PAGE_SIZE = 1000;

/** The first item that matches, reading pages only until it is found. */
export async function findFirst<T>(items: AsyncIterable<T>, match: (item: T) => boolean): Promise<T | undefined> {
  for await (const item of items) if (match(item)) return item;
  return undefined;
}

/**
 * Look up, create when absent. A 409 from the create (someone, e.g. a concurrent attempt, created it
 * between the look-up and the create) is answered by looking up once more.
 */
export async function findOrCreate<T>(find: () => Promise<T | undefined>, create: () => Promise<T>): Promise<T & { created: boolean }> {
  const existing = await find();
  if (existing !== undefined) return { ...existing, created: false };
  try {
    return { ...(await create()), created: true };
  } catch (err) {
    if (!(err instanceof PlatformConflictError)) throw err;
    const raced = await find();
    if (raced === undefined) throw err;
    return { ...raced, created: false };
  }
}

/** Phone numbers compared by their digits, so `+33 6 12..` and `33612..` match. */
export function samePhoneNumber(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const da = a.replace(/\D/g, '');
  return da !== '' && da === b.replace(/\D/g, '');
}

/**
 * True when every field of `expected` is in `actual` with an equal value (objects compared the same way,
 * arrays element by element with the same length): the platform may add fields of its own.
 */
export function containsSubset(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => containsSubset(actual[i], e));
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    return Object.entries(expected).every(([k, v]) => v === undefined || containsSubset(a[k], v));
  }
  return isDeepStrictEqual(actual, expected);
}
