// Starts the Temporal CLI dev server with relayflow's search attributes registered. A local binary runs in
// its own process group, so Ctrl-C reaches relayflow first and the server stops last (after the worker
// has drained); the SDK's download is the last resort.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_KEYS } from '../../common/search-attributes.js';
import { findTemporalCli, type TemporalCli } from './temporal-cli.js';
import { forgetServer, rememberServer, stopLeftoverServer } from './leftover-server.js';

export interface DevServerOptions {
  /** SQLite file; omitted = in memory (tests). */
  dbFilename?: string;
  port?: number;
  ui?: boolean;
  uiPort?: number;
  /** Codec endpoint the web UI calls to decode payloads. */
  uiCodecEndpoint?: string;
  /** Where the server's PID is kept (npm start): a server an earlier, killed run left behind is stopped first. */
  pidFile?: string;
  /**
   * Where the server's stderr goes (npm start: next to the PID file). A server meant to outlive an unclean stop
   * must not write to a pipe of the process that died: its next error line would kill it with SIGPIPE, at random.
   */
  logFile?: string;
  /** More of the server's dynamic config (`--dynamic-config-value key=value`, the value as JSON): npm test's waits. */
  dynamicConfig?: Record<string, unknown>;
  log?: (msg: string) => void;
}

export interface DevServer {
  address: string;
  cli: TemporalCli;
  stop(): Promise<void>;
}

/** Whether a server could listen on `port` now (on the loopback address). */
export function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

const PORT_WINDOW = 200;
const PORT_WINDOWS = 50;
/**
 * Ports this process handed out lately, with when: each is free when picked but bound later by its caller, so a
 * second pick before then (five ports for one `npm start`, a cluster's ports picked at once) must not name it again.
 */
const handedOut = new Map<number, number>();
const HANDED_OUT_MS = 120_000;

/**
 * A port free now, for a server that binds it later: below Linux's ephemeral range (32768 up), where the system
 * hands out the local ports of outgoing connections. A port the system picked (listen on 0) could be taken by any
 * process's next connection in the seconds before its server starts (it happened to npm start under the test load).
 */
export async function freePort(): Promise<number> {
  // Each process picks in its own window (by its pid): a server a test stops and starts again on its port is not
  // raced, in between, by another test process picking the same port (seen in CI: npm start's Temporal port taken).
  const base = 10_000 + (process.pid % PORT_WINDOWS) * PORT_WINDOW;
  for (let tries = 0; tries < 50; tries++) {
    const port = base + Math.floor(Math.random() * PORT_WINDOW);
    if (Date.now() - (handedOut.get(port) ?? -Infinity) < HANDED_OUT_MS) continue;
    handedOut.set(port, Date.now()); // before the await: a pick running beside this one skips it
    if (await canBind(port)) return port;
    handedOut.delete(port);
  }
  throw new Error(`no free port between ${base} and ${base + PORT_WINDOW} after 50 tries`);
}

export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  const cli = await findTemporalCli({ log: opts.log });
  // A port found free can be taken before the server binds it (another server starting beside this one, in CI):
  // then a port of our choosing is chosen again, at most three times.
  for (let attempt = 1; ; attempt++) {
    const port = opts.port || (await freePort());
    const uiPort = opts.ui ? opts.uiPort || (await freePort()) : undefined;
    try {
      return await startOn(cli, opts, port, uiPort);
    } catch (err) {
      if (opts.port || attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
      const said =
        (err as Error).message
          .split('\n')
          .find((l) => /address already in use/.test(l))
          ?.trim() ?? '';
      opts.log?.(`a port was taken before the Temporal dev server bound it (${said.slice(-160)}): trying another`);
    }
  }
}

async function startOn(cli: TemporalCli, opts: DevServerOptions, port: number, uiPort: number | undefined): Promise<DevServer> {
  const extra = [
    '--log-level',
    'error',
    '--dynamic-config-value',
    'matching.numTaskqueueReadPartitions=1',
    '--dynamic-config-value',
    'matching.numTaskqueueWritePartitions=1',
  ];
  for (const [key, value] of Object.entries(opts.dynamicConfig ?? {})) extra.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  if (opts.dbFilename) extra.push('--db-filename', opts.dbFilename);
  if (opts.uiCodecEndpoint) extra.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  for (const key of SEARCH_ATTRIBUTE_KEYS) extra.push('--search-attribute', `${key.name}=Keyword`);

  if (cli.kind === 'sdk-download') {
    const env = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'cached-download' }, ip: '127.0.0.1', port, ui: opts.ui ?? false, uiPort, extraArgs: extra },
    });
    return { address: env.address, cli, stop: () => env.teardown() };
  }

  if (opts.pidFile) await stopLeftoverServer(opts.pidFile, opts.log ?? (() => undefined));
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), ...(uiPort ? ['--ui-port', String(uiPort)] : ['--headless']), ...extra];
  const logFd = opts.logFile ? openSync(opts.logFile, 'w') : undefined;
  const child = spawn(cli.path, args, { detached: true, stdio: ['ignore', 'ignore', logFd ?? 'pipe'] });
  if (logFd !== undefined) closeSync(logFd); // the child holds its own copy
  let piped = '';
  child.stderr?.on('data', (d) => (piped = (piped + d).slice(-4000)));
  const stderr = () => (opts.logFile ? readFileSync(opts.logFile, 'utf8').slice(-4000) : piped);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  if (opts.pidFile && child.pid) await rememberServer(opts.pidFile, child.pid);
  const address = `127.0.0.1:${port}`;
  try {
    await waitUntilServing(address, child, stderr);
  } catch (err) {
    // Gone before the next try: a server half up still holds the ports it bound (the UI's, which a retry reuses).
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((res) => child.once('exit', () => res()));
      child.kill('SIGKILL');
      await exited;
    }
    process.removeListener('exit', killOnExit);
    throw err;
  }
  return {
    address,
    cli,
    async stop() {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
      if (opts.pidFile) await forgetServer(opts.pidFile);
    },
  };
}

async function waitUntilServing(address: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the Temporal dev server exited (code ${child.exitCode}): ${stderr().trim()}`);
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await conn.withDeadline(Date.now() + 1_000, () => conn.workflowService.getSystemInfo({}));
        return;
      } finally {
        await conn.close();
      }
    } catch {
      if (Date.now() > deadline) throw new Error(`the Temporal dev server did not answer on ${address} within 60 s: ${stderr().trim()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
