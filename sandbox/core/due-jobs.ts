// Future changes that must survive a restart (a review that approves later, a registration's next step): each
// job is plain JSON (its kind, its data, its due time in epoch ms) run by a handler the area registers at setup,
// instead of a closure, so the area's PersistedArea can save the pending jobs and reschedule them after a
// restore with what is left of their delay (a Kept part, kept.ts). The timers themselves are the area's Timers,
// so reset and close still cancel them. Records outlive close() (the final flush saves them) and are dropped by
// reset().
import type { Kept } from './kept.js';
import type { Timers } from './timers.js';

export interface DueJob {
  kind: string;
  dueAt: number;
  data: unknown;
  /** Timers key: cancel(key) drops every job (and timer) started with it. */
  key?: string;
}

export class DueJobs implements Kept<readonly DueJob[]> {
  private readonly handlers = new Map<string, (data: never) => void>();
  private readonly pending = new Map<number, DueJob>();
  private next = 0;

  constructor(private readonly timers: Timers) {}

  /** What a job of `kind` does when due; registered once, at setup, before any restore. */
  handle<D>(kind: string, run: (data: D) => void): void {
    if (this.handlers.has(kind)) throw new Error(`sandbox: due job kind ${kind} registered twice`);
    this.handlers.set(kind, run as (data: never) => void);
  }

  /** Runs the `kind` handler with `data` after `ms`; `data` must be plain JSON. */
  after(kind: string, ms: number, data: unknown, key?: string): void {
    this.start({ kind, dueAt: Date.now() + ms, data, ...(key !== undefined ? { key } : {}) });
  }

  cancel(key: string): void {
    this.timers.cancel(key);
    for (const [id, job] of this.pending) if (job.key === key) this.pending.delete(id);
  }

  /** On reset (with the Timers' reset): nothing pending any more. */
  reset(): void {
    this.pending.clear();
  }

  /** The pending jobs, soonest first. */
  save(): DueJob[] {
    return [...this.pending.values()].sort((a, b) => a.dueAt - b.dueAt);
  }

  /** Reschedules saved jobs; an overdue one runs at once. */
  load(jobs: readonly DueJob[]): void {
    this.pending.clear();
    for (const job of jobs) this.start(job);
  }

  private start(job: DueJob): void {
    const run = this.handlers.get(job.kind);
    if (!run) throw new Error(`sandbox: no handler for due job kind ${job.kind}`);
    const id = this.next++;
    this.pending.set(id, job);
    this.timers.after(
      Math.max(0, job.dueAt - Date.now()),
      () => {
        this.pending.delete(id);
        run(job.data as never);
      },
      job.key,
    );
  }
}
