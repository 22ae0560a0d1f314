// A node:test reporter for the runner (scripts/test.ts): one JSON line at the end of a run with the run's
// counts (from the runner's own closing diagnostics, so a file that crashed outside any test counts as a
// failure) and each file's wall time (its top-level `test:complete` under `--test`; in one process, the sum
// of its top-level tests). The runner sums the lines of every run.
// Plain JavaScript: node loads reporters before `--import tsx` applies.

const COUNTS = { pass: 'passed', fail: 'failed', cancelled: 'failed', skipped: 'skipped', todo: 'skipped' };

export default async function* tallyReporter(source) {
  const tally = { passed: 0, failed: 0, skipped: 0, files: {} };
  const ownRuns = new Set();
  for await (const event of source) {
    if (event.type === 'test:complete') {
      const { file, name, nesting, details } = event.data;
      if (nesting !== 0 || !file) continue;
      // Under --test each file is a subtest of the run named by its path; in one process, its top-level tests add up.
      if (name === file) {
        ownRuns.add(file);
        tally.files[file] = details.duration_ms;
      } else if (!ownRuns.has(file)) tally.files[file] = (tally.files[file] ?? 0) + details.duration_ms;
    } else if (event.type === 'test:diagnostic' && event.data.nesting === 0) {
      const m = /^(\w+) (\d+)$/.exec(event.data.message);
      const key = m && COUNTS[m[1]];
      if (key) tally[key] += Number(m[2]);
    }
  }
  yield `${JSON.stringify(tally)}\n`;
}
