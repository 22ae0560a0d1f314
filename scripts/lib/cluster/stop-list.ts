// What the cluster started, stopped in the reverse order of starting: the front before the APIs, the workers
// (which drain their tasks) before the sandbox they call, Temporal before its PostgreSQL.
export class StopList {
  private readonly entries: Array<[name: string, stop: () => Promise<unknown>]> = [];
  stopping = false;

  add(entry: [name: string, stop: () => Promise<unknown>]): void {
    this.entries.unshift(entry);
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
