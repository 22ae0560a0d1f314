// The README's "Try it" runs as written: `npm start` (scripts/dev.ts) on free ports and a data directory of its own
// (test/helpers/npm-start.ts), then every ```sh try-it block of README.md, and of the process pages (docs/processes/),
// in bash, the README's first (the variables and helpers) before each of the others. The port and the key reach the
// text only through the variables the first block itself reads (API, SBX, KEY); the test adds `set -eo pipefail`, so a
// `curl -f` that meets an HTTP error or a `wait_for STATE` that does not see its process reach STATE fails the block.
// The blocks run side by side (each waits on the sandbox's reviewers, not on the CPU); the README must keep one for
// every process family (TRY_IT_KINDS, test/helpers/try-it.ts).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { npmStartEnv } from '../helpers/npm-start.js';
import { kindsNotStarted, runTryIts, tryItBlocks, tryItProblems } from '../helpers/try-it.js';

describe('the README try-it blocks', () => {
  let dataDir = '';
  let stop: (() => Promise<void>) | undefined;
  after(async () => {
    await stop?.();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('each runs as written against npm start', { timeout: 240_000 }, async (t) => {
    const pages = (await readdir('docs/processes')).filter((f) => f.endsWith('.md')).map((f) => join('docs/processes', f));
    const markdown = (await Promise.all(['README.md', ...pages].map((f) => readFile(f, 'utf8')))).join('\n');
    const blocks = tryItBlocks(markdown);
    assert.ok(blocks.length >= 10, `the set-up and a block per process family: found ${blocks.length}`);

    const began = Date.now();
    dataDir = await mkdtemp(join(tmpdir(), 'relayflow-readme-'));
    const { ports, env } = await npmStartEnv(dataDir);
    const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
    delete childEnv.TEMPORAL_ADDRESS; // its own dev server, as a reader's npm start (a prebuilt bundle is kept: no bundling)
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<void>((res) => child.once('exit', () => res()));
    stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    };
    const ready = Date.now() + 120_000; // a deadline for a stuck start on a busy machine, not a speed check
    while (!output.includes('relayflow is ready')) {
      assert.equal(child.exitCode, null, `npm start exited early:\n${output}`);
      assert.ok(Date.now() < ready, `npm start not ready in 120 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    t.diagnostic(`npm start ready in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    const key = (await readFile(join(dataDir, 'api-key'), 'utf8')).trim();
    const api = `http://127.0.0.1:${ports.api}`;
    const shellEnv = {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? tmpdir(),
      API: api,
      SBX: `http://127.0.0.1:${ports.sandbox}`,
      KEY: key,
    };
    const ran = Date.now();
    const results = await runTryIts(markdown, shellEnv);
    t.diagnostic(`${results.length} blocks side by side in ${((Date.now() - ran) / 1000).toFixed(1)} s`);
    assert.deepEqual(tryItProblems(results), []);
    assert.deepEqual(await kindsNotStarted(api, key), [], 'the README starts a process of every kind');
  });
});
