// Stopping a process that overran its deadline, and everything it started: a bench past its bound, a test job
// past its deadline (node --test runs each file in a child that a kill of the parent alone leaves running).
// Killing the process group is not enough: the Temporal dev server runs in a process group of its own
// (scripts/lib/dev-server.ts), and a process killed by a signal never runs the exit hook that would stop it. So the whole tree under the bench is collected first (from /proc, before
// anything dies and the survivors are re-parented) and every process in it is signalled.
import { readdir, readFile } from 'node:fs/promises';
import { isAlive } from './leftover-server.js';

interface Proc {
  pid: number;
  ppid: number;
  start: string;
}

/** "pid (comm) state ppid … starttime(22) …": comm may hold spaces and parentheses, so split after the last ')'. */
async function readProc(pid: number): Promise<Proc | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, ppid: Number(fields[1]), start: fields[19] ?? '' };
}

/** Every process below `root` (Linux /proc; elsewhere none, and only the group is signalled). */
async function descendants(root: number): Promise<Proc[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const all = (await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map((e) => readProc(Number(e))))).filter((p) => p !== undefined);
  const found: Proc[] = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const p of all.filter((c) => c.ppid === parent)) {
      found.push(p);
      queue.push(p.pid);
    }
  }
  return found;
}

const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    // gone already
  }
};

/** SIGTERM to the process's group and every process under it, then SIGKILL to what is left after `graceMs`. */
export async function killTree(pid: number, graceMs = 3_000): Promise<void> {
  const tree = await descendants(pid);
  for (const p of [-pid, pid, ...tree.map((t) => t.pid)]) signal(p, 'SIGTERM');
  const alive = () => [pid, ...tree.map((t) => t.pid)].some(isAlive);
  for (const until = Date.now() + graceMs; alive() && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
  const later = await descendants(pid);
  signal(-pid, 'SIGKILL');
  for (const p of [...tree, ...later]) {
    // Only the same process (same start time): its PID may have been reused in the meantime.
    if ((await readProc(p.pid))?.start === p.start) signal(p.pid, 'SIGKILL');
  }
}
