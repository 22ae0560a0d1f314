// Headless Chromium from Debian's packages (`chromium`; CHROMIUM_PATH names another), two ways:
// - browse(): one run of the command line (--dump-dom, --screenshot) after a virtual time budget, for pages
//   that go quiet once drawn (the audit page);
// - openPage(): the DevTools protocol over a pipe (--remote-debugging-pipe, no dependency), for pages that
//   keep requests open (the Temporal web UI long-polls, so a virtual time budget never runs out): the test
//   reads the live DOM until what it waits for appears, within a real deadline.
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

const CHROMIUM = process.env.CHROMIUM_PATH ?? 'chromium';
export const WIDTH = 1280;
export const HEIGHT = 900;
const COMMON = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars', `--window-size=${WIDTH},${HEIGHT}`];

/** Chromium's output for `url` with `extra` flags (`--dump-dom` prints the DOM), after 15 s of virtual time. */
export function browse(url: string, dir: string, extra: string[]): Promise<string> {
  const args = [...COMMON, `--user-data-dir=${join(dir, 'profile')}`, '--virtual-time-budget=15000', ...extra, url];
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

export interface Page {
  /** The page's DOM as HTML now (what --dump-dom prints). */
  html(): Promise<string>;
  /** Reads the DOM every 250 ms until `done` says yes (returns that DOM) or `timeoutMs` passes (returns the last one). */
  waitFor(done: (html: string) => boolean, timeoutMs: number): Promise<{ html: string; done: boolean }>;
  /** Runs `expression` in the page and answers its value (JSON-able), e.g. a click on a button. */
  evaluate(expression: string): Promise<unknown>;
  /** Presses a key (DevTools `Input.dispatchKeyEvent`, e.g. 'Escape', 'Enter', 'Tab') where the page's focus is. */
  press(key: 'Escape' | 'Enter' | 'Tab'): Promise<void>;
  /** The page as it is now, a PNG of the window (WIDTH x HEIGHT). */
  screenshot(): Promise<Buffer>;
  close(): Promise<void>;
}

interface CdpMessage {
  id?: number;
  result?: Record<string, unknown>;
  error?: { message: string };
  sessionId?: string;
}

export interface OpenPageOptions {
  /** URL patterns the page's requests to fail (DevTools `Network.setBlockedURLs`: `*` is a wildcard). */
  block?: string[];
}

/** Opens `url` in a fresh headless Chromium (profile under `dir`) driven over the DevTools protocol. */
export async function openPage(url: string, dir: string, opts: OpenPageOptions = {}): Promise<Page> {
  // fd 3: commands to Chromium; fd 4: its answers and events; each message ends with a NUL byte.
  const child = spawn(CHROMIUM, [...COMMON, `--user-data-dir=${join(dir, 'cdp-profile')}`, '--remote-debugging-pipe', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  let failure = '';
  const exited = new Promise<void>((res) => {
    child.once('exit', () => res());
    child.once('error', (err) => {
      failure = `${CHROMIUM} could not start (${err.message}): install Debian's chromium package or set CHROMIUM_PATH`;
      res();
    });
  });
  toBrowser.on('error', () => undefined); // Chromium gone: the pending commands fail below
  const pending = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let buffer = '';
  fromBrowser.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let end = buffer.indexOf('\0'); end >= 0; end = buffer.indexOf('\0')) {
      const message = JSON.parse(buffer.slice(0, end)) as CdpMessage;
      buffer = buffer.slice(end + 1);
      const waiter = message.id === undefined ? undefined : pending.get(message.id);
      if (!waiter) continue; // an event
      pending.delete(message.id!);
      if (message.error) waiter.reject(new Error(`Chromium: ${message.error.message}`));
      else waiter.resolve(message.result ?? {});
    }
  });
  void exited.then(() => {
    for (const w of pending.values()) w.reject(new Error(failure || `Chromium exited: ${stderr.trim().split('\n').slice(-5).join('\n')}`));
    pending.clear();
  });
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`Chromium did not answer ${method} within 20 s`));
      }, 20_000);
      pending.set(id, { resolve: (r) => (clearTimeout(timer), resolve(r)), reject: (e) => (clearTimeout(timer), reject(e)) });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null || failure) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await send('Browser.close').catch(() => undefined);
    await exited;
    clearTimeout(timer);
  };

  try {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = (await send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    if (opts.block?.length) {
      await send('Network.enable', {}, sessionId);
      await send('Network.setBlockedURLs', { urls: opts.block }, sessionId);
    }
    await send('Page.navigate', { url }, sessionId);
    const html = async () => {
      const { result } = await send(
        'Runtime.evaluate',
        { expression: 'document.documentElement ? document.documentElement.outerHTML : ""', returnByValue: true },
        sessionId,
      );
      return String((result as { value?: unknown }).value ?? '');
    };
    const KEYS = { Escape: 27, Enter: 13, Tab: 9 } as const;
    return {
      html,
      async evaluate(expression) {
        const { result, exceptionDetails } = (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId)) as {
          result: { value?: unknown };
          exceptionDetails?: { text: string; exception?: { description?: string } };
        };
        if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
        return result.value;
      },
      async press(key) {
        const code = KEYS[key];
        const text = key === 'Enter' ? '\r' : undefined;
        await send('Input.dispatchKeyEvent', { type: 'keyDown', key, code: key, windowsVirtualKeyCode: code, ...(text ? { text } : {}) }, sessionId);
        await send('Input.dispatchKeyEvent', { type: 'keyUp', key, code: key, windowsVirtualKeyCode: code }, sessionId);
      },
      async screenshot() {
        // The window's viewport is smaller than the window (headless keeps room for its frame): the page is sized as browse() sizes it.
        await send('Emulation.setDeviceMetricsOverride', { width: WIDTH, height: HEIGHT, deviceScaleFactor: 1, mobile: false }, sessionId);
        const { data } = (await send('Page.captureScreenshot', { format: 'png' }, sessionId)) as { data: string };
        return Buffer.from(data, 'base64');
      },
      async waitFor(done, timeoutMs) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const current = await html();
          if (done(current)) return { html: current, done: true };
          if (Date.now() > deadline) return { html: current, done: false };
          await new Promise((r) => setTimeout(r, 250));
        }
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
