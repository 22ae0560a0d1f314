// One of the cluster's node processes (a worker, an API instance, the sandbox): its entry point run with tsx, its
// output appended to a log file, ready when a line matches, stopped with SIGTERM (a worker drains its tasks first).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export interface NodeProcess {
  name: string;
  pid: number;
  /** Whether it still runs (a process killed or crashed does not). */
  running(): boolean;
  stop(): Promise<void>;
  /** SIGKILL, as a crash or an OOM kill would end it: no draining. Resolves once it has exited. */
  kill(): Promise<void>;
}

export interface NodeProcessOptions {
  name: string;
  script: string;
  env: Record<string, string>;
  logFile: string;
  /** A line of its output that says it is ready. */
  ready: RegExp;
  timeoutMs?: number;
}

function exitOf(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

export async function startNodeProcess(opts: NodeProcessOptions): Promise<NodeProcess> {
  // Its own process group, so Ctrl-C reaches only the script, which stops the processes in order.
  const child = spawn(process.execPath, ['--import', 'tsx', opts.script], { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = exitOf(child);
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = async () => {
    if (running()) child.kill('SIGKILL');
    await exited;
    log.end();
  };
  const stop = async () => {
    if (running()) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    log.end();
  };
  const ready = new Promise<void>((resolve, reject) => {
    let seen = '';
    const watch = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-8_192);
      if (opts.ready.test(seen)) resolve();
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', watch);
    void exited.then(() => reject(new Error(`${opts.name} exited during start (its log: ${opts.logFile})`)));
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${opts.name} was not ready within ${(opts.timeoutMs ?? 120_000) / 1000} s (its log: ${opts.logFile})`)),
      opts.timeoutMs ?? 120_000,
    );
  });
  try {
    await Promise.race([ready, timeout]);
  } catch (err) {
    await stop();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return { name: opts.name, pid: child.pid!, running, stop, kill };
}
