// The one-command promise: `npm start` (scripts/dev.ts) brings up Temporal with a SQLite file, the sandbox,
// a worker and the API, and says where they are, with the key, and not webpack's module list; a subproject started
// through the API completes; Ctrl-C stops it cleanly; and after
// a restart on the same data directory the process is still there; after a SIGKILL the next start stops the
// dev server the killed one left running, and the processes in flight finish against the sandbox's kept state.
import assert from 'node:assert/strict';
import { isAlive } from '../../scripts/lib/leftover-server.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { within } from '../helpers/deadline.js';
import { npmStartEnv } from '../helpers/npm-start.js';

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `prebuiltBundle`: the worker loads the suite's workflow bundle instead of bundling at start. The first start
 * bundles, as on a fresh checkout; the restarts, which test what survives a stop or a kill, skip the seconds
 * of bundling again.
 */
async function startRelayflow(env: Record<string, string>, { prebuiltBundle = false } = {}): Promise<Running> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  delete childEnv.TEMPORAL_ADDRESS; // the point is that it starts its own server
  if (!prebuiltBundle) delete childEnv.RELAYFLOW_WORKFLOW_BUNDLE;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  // A whole stack from source, the first start bundling its workflows: on a loaded CI machine over 120 s.
  const deadline = Date.now() + 240_000;
  while (!out.includes('relayflow is ready')) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${out}`);
    if (Date.now() > deadline) throw new Error(`npm start not ready in time:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, output: () => out, exited };
}

async function stop(r: Running): Promise<number | null> {
  r.child.kill('SIGINT');
  return within(r.exited, 60_000, () => {
    r.child.kill('SIGKILL');
    throw new Error(`did not stop within 60 s:\n${r.output()}`);
  });
}

describe('npm start', () => {
  let dataDir = '';
  after(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('runs everything, completes a subproject, stops cleanly, keeps processes across a restart, and after a SIGKILL cleans up and resumes the processes in flight against a sandbox that remembers', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'relayflow-e2e-'));
    const { ports, env } = await npmStartEnv(dataDir);
    const { api: apiPort, ui: uiPort, sandbox: sandboxPort } = ports;
    const first = await startRelayflow({ ...env, RELAYFLOW_LOG_LEVEL: 'info' });
    const out = first.output();
    const api = `http://127.0.0.1:${apiPort}`;
    const sandbox = `http://127.0.0.1:${sandboxPort}`;
    for (const line of [
      `API           ${api}`,
      `API docs      ${api}/docs`,
      `Temporal UI   http://127.0.0.1:${uiPort}`,
      `sandbox at ${sandbox}`,
      'workflows bundled at start',
    ]) {
      assert.ok(out.includes(line), `prints "${line}"`);
    }
    const key = (await readFile(join(dataDir, 'api-key'), 'utf8')).trim();
    assert.ok(out.includes(`API key       ${key}`), 'prints the API key');
    assert.ok(out.includes(`export API=${api} SBX=${sandbox} KEY=${key}`), "prints the README try-it's variables");
    // What a person needs, at info: webpack's module list and the SDK's worker chatter only at debug.
    assert.doesNotMatch(out, /modules by path|webpack [\d.]+ compiled|Workflow bundle created|Worker state changed|No workflows registered/);
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    assert.equal((await fetch(`${api}/readyz`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${uiPort}/`)).status, 200, 'Temporal web UI answers');

    const started = await fetch(`${api}/v1/subprojects`, { method: 'POST', headers: auth, body: JSON.stringify({ displayName: 'e2e' }) });
    assert.equal(started.status, 202);
    const { processId } = (await started.json()) as { processId: string };
    const url = `${api}/v1/processes/${encodeURIComponent(processId)}`;
    let state = '';
    for (let i = 0; i < 300 && state !== 'READY'; i++) {
      state = ((await (await fetch(url, { headers: auth })).json()) as { state: string }).state;
      if (state !== 'READY') await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(state, 'READY');

    assert.equal(await stop(first), 0, 'clean exit on Ctrl-C');
    assert.match(first.output(), /stopped worker/);
    assert.match(first.output(), /stopped Temporal dev server/);

    const second = await startRelayflow({ ...env, RELAYFLOW_LOG_LEVEL: 'info' }, { prebuiltBundle: true });
    const res = await fetch(url, { headers: auth });
    assert.equal(res.status, 200, 'the process survived the restart (SQLite)');
    assert.equal(((await res.json()) as { state: string }).state, 'READY');
    // Logs for people: pino-pretty lines (`[hh:mm:ss.mmm] INFO (relayflow/...): ...`), no JSON lines.
    assert.match(second.output(), /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO/m);
    assert.doesNotMatch(second.output(), /^\{"level"/m);

    // Processes in flight when npm start dies: subprojects the platform has made but that are not usable yet (5 s).
    const inFlight: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${api}/v1/subprojects`, { method: 'POST', headers: auth, body: JSON.stringify({ displayName: `in-flight-${i}` }) });
      assert.equal(res.status, 202);
      inFlight.push(`${api}/v1/processes/${encodeURIComponent(((await res.json()) as { processId: string }).processId)}`);
    }
    const stateOf = async (u: string) => ((await (await fetch(u, { headers: auth })).json()) as { state: string }).state;
    for (const u of inFlight) {
      for (let i = 0; i < 100 && (await stateOf(u)) !== 'WAITING_UNTIL_USABLE'; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(await stateOf(u), 'WAITING_UNTIL_USABLE');
    }
    // The sandbox writes its state every 250 ms: what it answered a second ago is on disk.
    await new Promise((r) => setTimeout(r, 1000));

    // An unclean stop (SIGKILL) leaves the dev server running in its own process group; the next start stops it.
    const leftover = Number((await readFile(join(dataDir, 'temporal.pid'), 'utf8')).trim());
    second.child.kill('SIGKILL');
    await second.exited;
    assert.ok(isAlive(leftover), 'the dev server outlived the killed npm start');
    // Its stderr is a file, not a pipe to the dead npm start (whose next error line would have killed it at random).
    assert.ok(existsSync(join(dataDir, 'temporal.log')), 'the dev server writes its errors to temporal.log');
    const third = await startRelayflow(env, { prebuiltBundle: true });
    try {
      assert.match(third.output(), new RegExp(`stopping the Temporal dev server an earlier npm start left running \\(pid ${leftover}\\)`));
      assert.equal(isAlive(leftover), false, 'the leftover server is gone');
      const again = await fetch(url, { headers: auth });
      assert.equal(((await again.json()) as { state: string }).state, 'READY', 'and the process is still there');
      // The sandbox remembered the subprojects made before the kill: the processes in flight end READY, not on a 404.
      for (const u of inFlight) {
        for (let i = 0; i < 300 && !['READY', 'FAILED'].includes(await stateOf(u)); i++) await new Promise((r) => setTimeout(r, 200));
        assert.equal(await stateOf(u), 'READY', u);
      }
    } finally {
      assert.equal(await stop(third), 0);
    }
    await assert.rejects(readFile(join(dataDir, 'temporal.pid')), 'a clean stop forgets the PID');
  });
});
