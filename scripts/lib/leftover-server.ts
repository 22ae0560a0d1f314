// npm start's dev server (and npm run cluster's processes) run in process groups of their own (so Ctrl-C reaches
// the script first, which stops them in order), which also means they outlive a script killed without a chance
// to stop them (SIGKILL, a closed terminal). Each PID is kept in a file; the next start stops a leftover it finds
// there before starting its own, and says so. A PID that now names another program is left alone.
import { readFile, rm, writeFile } from 'node:fs/promises';

/** Whether a process with this PID exists (signal 0 checks without sending). */
export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Linux names a process's command line in /proc; elsewhere there is no cheap way, and nothing is killed. */
async function commandHas(pid: number, marker: string): Promise<boolean | undefined> {
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(marker);
  } catch {
    return process.platform === 'linux' ? false : undefined;
  }
}

export interface Leftover {
  /** What it is, for the log: "the Temporal dev server an earlier npm start left running". */
  what: string;
  /** A part of its command line that says it is the process the file meant. */
  marker: string;
}

const DEV_SERVER: Leftover = { what: 'the Temporal dev server an earlier npm start left running', marker: 'start-dev' };

/** Stops the process an earlier start left running, if the PID file names one (by default npm start's dev server). */
export async function stopLeftoverServer(pidFile: string, log: (msg: string) => void, leftover: Leftover = DEV_SERVER): Promise<void> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return void (await rm(pidFile, { force: true }));
  const ours = await commandHas(pid, leftover.marker);
  if (ours === undefined) {
    throw new Error(`${leftover.what} may still be running (pid ${pid}, in ${pidFile}): stop it (kill ${pid}), delete that file, and start again`);
  }
  if (!ours) return void (await rm(pidFile, { force: true }));
  log(`stopping ${leftover.what} (pid ${pid})...`);
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));
  await rm(pidFile, { force: true });
}

export const rememberServer = (pidFile: string, pid: number) => writeFile(pidFile, `${pid}\n`);
export const forgetServer = (pidFile: string) => rm(pidFile, { force: true });
