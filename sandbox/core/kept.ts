// The one way an area's state is kept across a restart of a persistent sandbox: its durable parts (the kit's
// tables and due jobs, or a small save/load of a setting) are named in ctx.own's `kept`, and the core saves each
// under its name in the area's row and loads each back before listening. Timers, queues in flight and test knobs
// are not parts: what was pending is rebuilt from the loaded records by `resume`.
import type { PersistedArea } from './persistence.js';

/** A durable part of an area's state: copied out whole as plain JSON at each flush, loaded back once. */
export interface Kept<S = unknown> {
  /** Plain JSON (no Maps, no timers); runs at every flush, so keep it a copy-out. */
  save(): S;
  /** Replaces the part's contents with saved ones, rebuilding its indexes. */
  load(saved: S): void;
}

/** The named parts one row holds. */
export type KeptParts = Record<string, Kept>;

export interface KeptArea {
  /** The row the state is kept under; unique per sandbox. */
  name: string;
  parts: KeptParts;
  /** After every part is loaded: reschedule what was pending (due times are epoch ms; the overdue run at once). */
  resume?(): void;
}

/** Several parts saved and loaded as one object, by name; a part missing from the saved object stays empty. */
export function keptTogether(parts: KeptParts): Kept<Record<string, unknown>> {
  return {
    save: () => Object.fromEntries(Object.entries(parts).map(([name, part]) => [name, part.save()])),
    load: (saved) => {
      if (typeof saved !== 'object' || saved === null) throw new Error('the saved state is not an object');
      for (const [name, part] of Object.entries(parts)) if (saved[name] !== undefined) part.load(saved[name]);
    },
  };
}

/** What the persistence (persistence.ts) calls for a kept area. */
export function persistedArea({ name, parts, resume }: KeptArea): PersistedArea {
  const whole = keptTogether(parts);
  return {
    name,
    persist: () => whole.save(),
    restore: (state) => {
      whole.load(state as Record<string, unknown>);
      resume?.();
    },
  };
}

/** A single value kept as it is (a counter object, a setting), back to `initial()` on reset. */
export class KeptValue<T> implements Kept<T> {
  value: T;

  constructor(private readonly initial: () => T) {
    this.value = initial();
  }

  save(): T {
    return this.value;
  }

  load(saved: T): void {
    this.value = saved;
  }

  reset(): void {
    this.value = this.initial();
  }
}
