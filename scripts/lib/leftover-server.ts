// npm start's dev server runs in its own process group (so Ctrl-C reaches relayflow first), which also means
// it outlives an npm start killed without a chance to stop it (SIGKILL, a closed terminal). Its PID is kept
// next to its SQLite file; the next start stops a leftover it finds there before starting its own, and says
// so. A PID that now names another program is left alone.
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
async function isDevServer(pid: number): Promise<boolean | undefined> {
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('start-dev');
  } catch {
    return process.platform === 'linux' ? false : undefined;
  }
}

/** Stops the dev server an earlier npm start left running, if the PID file names one. */
export async function stopLeftoverServer(pidFile: string, log: (msg: string) => void): Promise<void> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return void (await rm(pidFile, { force: true }));
  const ours = await isDevServer(pid);
  if (ours === undefined) {
    throw new Error(
      `a Temporal dev server from an earlier npm start may still be running (pid ${pid}, in ${pidFile}): stop it (kill ${pid}), delete that file, and start again`,
    );
  }
  if (!ours) return void (await rm(pidFile, { force: true }));
  log(`stopping the Temporal dev server an earlier npm start left running (pid ${pid})...`);
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 10_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await new Promise((r) => setTimeout(r, 50));
  await rm(pidFile, { force: true });
}

export const rememberServer = (pidFile: string, pid: number) => writeFile(pidFile, `${pid}\n`);
export const forgetServer = (pidFile: string) => rm(pidFile, { force: true });
