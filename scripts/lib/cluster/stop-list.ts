// What the cluster started, stopped in the reverse order of starting: the front before the APIs, the workers
// (which drain their tasks) before the sandbox they call, Temporal before its PostgreSQL.
export class StopList {
  private readonly entries: Array<[name: string, stop: () => Promise<unknown>]> = [];
  stopping = false;

  /** Adds what was just started; once stopping, it throws, so a start under way ends at its next step. */
  add(entry: [name: string, stop: () => Promise<unknown>]): void {
    this.entries.unshift(entry);
    if (this.stopping) throw new Error(`stopping: ${entry[0]} started as the stop was asked`);
  }

  /** Runs every stop once, each even when an earlier one failed; `say` hears how each went. */
  async stopAll(say: (msg: string) => void): Promise<void> {
    this.stopping = true;
    for (const [name, stop] of this.entries.splice(0)) {
      await stop().then(
        () => say(`  stopped ${name}`),
        (err: unknown) => say(`  ${name} did not stop cleanly: ${(err as Error).message}`),
      );
    }
  }
}
