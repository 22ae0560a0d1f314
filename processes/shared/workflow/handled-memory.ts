// A bounded memory of what a workflow has handled: events by eventId (a repeated delivery is dropped) and API
// operations by operationId (a repeated one is answered with the first one's outcome). Beyond its bound the
// oldest entries are forgotten first. Carried across continue-as-new as an array: `toCarry()` for operations
// ([id, outcome] entries), `ids()` for events (IDs only).

/** How many operations a process remembers. */
const KEEP_OPERATIONS = 100;

export class HandledMemory<T> {
  private readonly done: Map<string, T>;
  private readonly running = new Map<string, Promise<T>>();

  /** `carried`: a previous run's `toCarry()`; `keep`: the bound (operations' by default). */
  constructor(
    carried: Iterable<readonly [string, T]> = [],
    private readonly keep = KEEP_OPERATIONS,
  ) {
    this.done = new Map(carried);
  }

  /** A memory of IDs only (events), from a previous run's `ids()`. */
  static ofIds(carried: Iterable<string> | undefined, keep: number): HandledMemory<true> {
    return new HandledMemory(
      [...(carried ?? [])].map((id) => [id, true] as const),
      keep,
    );
  }

  /** Handled, or (`run`) still running. */
  knows(id: string): boolean {
    return this.done.has(id) || this.running.has(id);
  }

  /** The answer a handled ID was given. */
  get(id: string): T | undefined {
    return this.done.get(id);
  }

  /** Records an ID as handled, with its answer; beyond the bound the oldest entry is forgotten. */
  set(id: string, value: T): void {
    this.done.set(id, value);
    if (this.done.size > this.keep) this.done.delete(this.done.keys().next().value!);
  }

  /** For a memory of IDs: records the ID and says true the first time, false for a repeat. */
  firstTime(this: HandledMemory<true>, id: string): boolean {
    if (this.done.has(id)) return false;
    this.set(id, true);
    return true;
  }

  /**
   * Runs an operation once: a repeated ID is answered with the first one's outcome, also while the first is still
   * running. `fn` starts a microtask later (after an await), as recorded histories expect.
   */
  async run(id: string, fn: () => Promise<T> | T): Promise<T> {
    const known = this.done.get(id) ?? this.running.get(id);
    if (known) return known;
    const p = Promise.resolve().then(fn);
    this.running.set(id, p);
    try {
      const outcome = await p;
      this.set(id, outcome);
      return outcome;
    } finally {
      this.running.delete(id);
    }
  }

  /**
   * Runs an operation unless its ID was handled (then answers with its outcome). Unlike `run`, `fn` starts at once
   * and a repeat that arrives while the first still runs runs too: the campaign and the sender ID registration
   * recorded their runs this way, and a change in when the handler's commands come would not replay.
   */
  async remember(id: string, fn: () => Promise<T> | T): Promise<T> {
    const known = this.done.get(id);
    if (known) return known;
    const outcome = await fn();
    this.set(id, outcome);
    return outcome;
  }

  /** The entries to carry across continue-as-new, oldest first. */
  toCarry(): [string, T][] {
    return [...this.done.entries()];
  }

  /** The IDs to carry across continue-as-new (a memory of events), oldest first. */
  ids(): string[] {
    return [...this.done.keys()];
  }
}
