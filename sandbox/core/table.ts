// The tables an area's state is made of, each a Kept part (kept.ts) a persistent sandbox saves and loads whole:
// ScopedTable, records under a scope (the project, parent project or application that owns them), looked up by
// scope and id (another scope's record is not found) and listed per scope in the order added; KeyedTable, values
// by a plain key (a number, a reference, an application key). Lists is an index, rebuilt by a load, never saved.
import type { Kept } from './kept.js';

/** A record with its scope, as entries() gives them (and as a table whose records do not carry it saves them). */
export interface Scoped<T> {
  projectId: string;
  item: T;
}

export interface TableKeys<T> {
  /** Default: the record's `id`. */
  id?: (item: T) => string;
  /** When the record names its own scope: add(item) finds it, and save() gives the bare records (else entries). */
  scope?: (item: T) => string;
}

export class ScopedTable<T> implements Kept<readonly unknown[]> {
  private readonly byId = new Map<string, Scoped<T>>();
  private readonly byScope = new Map<string, T[]>();
  private readonly idOf: (item: T) => string;

  constructor(private readonly keys: TableKeys<T> = {}) {
    this.idOf = keys.id ?? ((item) => (item as { id: string }).id);
  }

  /** Adds (or replaces, keeping its place in the scope's list) under `scope`, or the record's own scope. */
  add(scopeOrItem: string | T, maybeItem?: T): T {
    const item = maybeItem ?? (scopeOrItem as T);
    const scope = maybeItem === undefined ? this.scopeOf(item) : (scopeOrItem as string);
    const id = this.idOf(item);
    const old = this.byId.get(id);
    this.byId.set(id, { projectId: scope, item });
    const list = this.byScope.get(scope) ?? [];
    const at = old && old.projectId === scope ? list.indexOf(old.item) : -1;
    if (at >= 0) list[at] = item;
    else list.push(item);
    this.byScope.set(scope, list);
    return item;
  }

  /** The record, if it is in `scope`. */
  get(scope: string, id: string): T | undefined {
    const e = this.byId.get(id);
    return e && e.projectId === scope ? e.item : undefined;
  }

  /** Any scope's; for the control routes and unauthenticated routes, which name records by id only. */
  find(id: string): Scoped<T> | undefined {
    return this.byId.get(id);
  }

  /** The record in `scope`, or `missing()` thrown (the area's 404). */
  mustGet(scope: string, id: string, missing: () => Error): T {
    const item = this.get(scope, id);
    if (item === undefined) throw missing();
    return item;
  }

  list(scope: string): T[] {
    return this.byScope.get(scope) ?? [];
  }

  /** Every record, in the order added. */
  all(): T[] {
    return [...this.byId.values()].map((e) => e.item);
  }

  remove(scope: string, id: string): boolean {
    const item = this.get(scope, id);
    if (item === undefined) return false;
    this.byId.delete(id);
    this.byScope.set(
      scope,
      this.list(scope).filter((i) => i !== item),
    );
    return true;
  }

  /** Every record with its scope, in the order added. */
  entries(): Scoped<T>[] {
    return [...this.byId.values()];
  }

  /** The records in the order added: bare when they name their scope, else as entries with it. */
  save(): T[] | Scoped<T>[] {
    return this.keys.scope ? this.all() : this.entries();
  }

  /** Re-adds saved records (save()'s form) in their order, rebuilding both indexes. */
  load(saved: readonly unknown[]): void {
    this.reset();
    for (const s of saved) {
      if (this.keys.scope) this.add(s as T);
      else this.add((s as Scoped<T>).projectId, (s as Scoped<T>).item);
    }
  }

  reset(): void {
    this.byId.clear();
    this.byScope.clear();
  }

  private scopeOf(item: T): string {
    if (!this.keys.scope) throw new Error('sandbox: this table needs a scope for each record');
    return this.keys.scope(item);
  }
}

/** Values by a plain key, saved as one JSON object; a Map otherwise. */
export class KeyedTable<V> extends Map<string, V> implements Kept<Record<string, V>> {
  save(): Record<string, V> {
    return Object.fromEntries(this);
  }

  load(saved: Record<string, V>): void {
    this.clear();
    for (const [key, value] of Object.entries(saved)) this.set(key, value);
  }

  reset(): void {
    this.clear();
  }
}

/** A secondary index of a store: the records under each key (a number, a reference, an app), in the order added. */
export class Lists<T> {
  private readonly byKey = new Map<string, T[]>();

  add(key: string, item: T): void {
    const list = this.byKey.get(key);
    if (list) list.push(item);
    else this.byKey.set(key, [item]);
  }

  get(key: string): readonly T[] {
    return this.byKey.get(key) ?? [];
  }

  reset(): void {
    this.byKey.clear();
  }
}
