// The optional memory of a sandbox across restarts (createSandbox's dataDir). Areas hand what they keep to the
// SandboxContext as named Kept parts (ctx.own's `kept`, kept.ts), which it turns into a PersistedArea each; with a
// dataDir, createSandbox loads every area's saved state before listening, then flushes every FLUSH_INTERVAL_MS and
// once more in close(). A flush writes only the areas whose JSON changed since their last write, in one
// transaction, so the store always holds a consistent set. The loss window: a SIGKILL (or a crash) loses what
// changed since the last flush, at most one interval.
// Without a dataDir none of this runs and nothing is loaded (state-table.ts imports PGlite on demand).
import type { Logger } from 'pino';
import { openStateTable, type StateTable } from './state-table.js';

export interface PersistedArea {
  /** The row the state is kept under; unique per sandbox. */
  name: string;
  /** The area's durable records as plain JSON (no Maps, no timers). Runs at every flush: keep it a copy-out. */
  persist(): unknown;
  /**
   * Replaces the area's empty state with a saved one, rebuilding its indexes, and reschedules what was pending
   * (due times are stored as epoch ms; what is overdue runs at once). Runs once, after setup, before listening.
   */
  restore(state: unknown): void;
}

export const FLUSH_INTERVAL_MS = 250;

export class SandboxPersistence {
  /** Per area, the JSON last written (or loaded), so unchanged areas are not rewritten. */
  private readonly written = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly table: StateTable,
    private readonly areas: readonly PersistedArea[],
    private readonly logger: Logger | undefined,
  ) {}

  /** Opens the store under `dir`, loads every area's saved state and starts the periodic flush. */
  static async open(dir: string, areas: readonly PersistedArea[], logger: Logger | undefined): Promise<SandboxPersistence> {
    const table = await openStateTable(dir);
    const p = new SandboxPersistence(table, areas, logger);
    try {
      await p.restore(dir);
    } catch (err) {
      await table.close();
      throw err;
    }
    p.timer = setInterval(() => void p.flush(), FLUSH_INTERVAL_MS);
    p.timer.unref();
    return p;
  }

  /** Writes the areas that changed; flushes never overlap (a tick during a slow write waits its turn). */
  flush(): Promise<void> {
    this.flushing = this.flushing
      .then(() => this.write())
      .catch((err: unknown) => {
        this.logger?.warn({ err }, 'sandbox: saving the state failed; retrying at the next flush');
      });
    return this.flushing;
  }

  /** The final flush, then the store is closed. Call once the areas have stopped changing (after app.close). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    await this.table.close();
  }

  private async restore(dir: string): Promise<void> {
    const saved = await this.table.readAll();
    for (const area of this.areas) {
      const state = saved.get(area.name);
      if (state === undefined) continue;
      try {
        area.restore(state);
      } catch (err) {
        throw new Error(
          `sandbox: the saved state of area ${area.name} under ${dir} could not be restored (${(err as Error).message}); remove that directory to start afresh`,
          { cause: err },
        );
      }
      this.written.set(area.name, JSON.stringify(area.persist()));
    }
    this.logger?.info({ dir, areas: [...saved.keys()] }, 'sandbox state restored');
  }

  private async write(): Promise<void> {
    const changed: { name: string; json: string }[] = [];
    for (const area of this.areas) {
      const json = JSON.stringify(area.persist());
      if (this.written.get(area.name) !== json) changed.push({ name: area.name, json });
    }
    if (changed.length === 0) return;
    await this.table.write(changed);
    for (const { name, json } of changed) this.written.set(name, json);
  }
}
