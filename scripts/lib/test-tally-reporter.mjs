// A node:test reporter for the runner (scripts/test.ts): one JSON line at the end of a run with the run's
// counts (from the runner's own closing diagnostics, so a file that crashed outside any test counts as a
// failure) and each file's wall time (its top-level `test:complete` under `--test`; in one process, the sum
// of its top-level tests), and the CPU the job burnt (this process and the file processes it waited for: on two
// cores, CPU and not wall time is what makes the suite slow). The runner sums the lines of every run.
// Plain JavaScript: node loads reporters before `--import tsx` applies.
import { readFileSync } from 'node:fs';
import process from 'node:process';

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
  yield `${JSON.stringify({ ...tally, cpuMs: cpuMs() })}\n`;
}

/** User + system CPU of this process and of its children it has waited for (Linux's /proc; else this process only). */
function cpuMs() {
  const { user, system } = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name: state is field 3, cutime and cstime fields 16 and 17, in clock ticks (100 a second).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = ((Number(fields[13]) + Number(fields[14])) / 100) * 1000;
  } catch {
    children = 0;
  }
  return Math.round((user + system) / 1000 + children);
}
