// How much of the machine a test run had: other work on the same cores (another run, a type check, a benchmark)
// stretches every file's wall time, and times saved from such a run would plan the next one (scripts/lib/test-pool.ts)
// as if each file were that slow: batches of fewer files, each paying its process's start again.
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';

/** Clock ticks a second in /proc (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** Busy CPU time of the whole machine (every core), in ticks; undefined where /proc/stat cannot be read. */
function machineBusyTicks(): number | undefined {
  try {
    const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    return user! + nice! + system! + irq! + softirq! + (steal ?? 0);
  } catch {
    return undefined;
  }
}

/** CPU time of this process and of the children it has waited for (the jobs, the servers once stopped), in ticks. */
function ownTicks(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // utime, stime, cutime, cstime: fields 14-17, counted from the state (field 3) at index 0.
    return f[11]! + f[12]! + f[13]! + f[14]!;
  } catch {
    return undefined;
  }
}

export interface RunShare {
  /** Of the CPU the machine burnt during the run, the run's own part (1 when it could not be measured). */
  own: number;
  /** Whether the cores were busy nearly all the time: only then did the others' work stretch the run. */
  saturated: boolean;
  /**
   * The factor that takes the run's wall times back to a machine the run had to itself (1 when it had): its share of
   * the busy cores, but not below a half, since the time a test waits on its timers is not stretched.
   */
  scale: number;
}

/** Started at the run's start; `end()` after every job and server has ended. */
export function measureRunShare(): { end(): RunShare } {
  const started = Date.now();
  const busy0 = machineBusyTicks();
  const own0 = ownTicks();
  return {
    end() {
      const busy1 = machineBusyTicks();
      const own1 = ownTicks();
      if (busy0 === undefined || busy1 === undefined || own0 === undefined || own1 === undefined || busy1 <= busy0)
        return { own: 1, saturated: false, scale: 1 };
      const busy = busy1 - busy0;
      const own = Math.min(1, (own1 - own0) / busy);
      const capacity = ((Date.now() - started) / 1000) * TICKS * availableParallelism();
      const saturated = busy > 0.85 * capacity;
      return { own, saturated, scale: saturated ? Math.max(0.5, own) : 1 };
    },
  };
}
