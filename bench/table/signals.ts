// Ctrl-C or a CI timeout on the runner stops the bench running under it too (its processes are in a group and
// partly in groups of their own, so the terminal's signal alone would not reach them all).
import { running } from './run-bench.js';
import { killTree } from '../../scripts/lib/process-tree.js';

export function stopOnSignal(): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      process.stderr.write(`\n[table] ${sig}: stopping the running bench\n`);
      void Promise.all([...running].map((pid) => killTree(pid, 1_000))).finally(() => process.exit(130));
    });
  }
}
