// Environment validation of the standalone sandbox (npm run sandbox).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSandboxMainConfig } from '../../sandbox/main-config.js';
import { waitForOutput } from '../helpers/child-output.js';
import { entryArgs } from '../helpers/compiled-tree.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('sandbox main config', () => {
  test('defaults: port 4010 on 127.0.0.1, area options unset', () => {
    assert.deepEqual(readSandboxMainConfig({}), {
      port: 4010,
      host: '127.0.0.1',
      tokenLifetimeSeconds: undefined,
      subprojectReadyAfterMs: undefined,
      dataDir: undefined,
    });
  });

  test('reads every variable', () => {
    const c = readSandboxMainConfig({
      SANDBOX_PORT: '0',
      SANDBOX_HOST: '0.0.0.0',
      SANDBOX_TOKEN_LIFETIME_SECONDS: '60',
      SANDBOX_SUBPROJECT_READY_MS: '0',
      SANDBOX_DATA_DIR: 'tmp/sandbox-data',
    });
    assert.deepEqual(c, { port: 0, host: '0.0.0.0', tokenLifetimeSeconds: 60, subprojectReadyAfterMs: 0, dataDir: resolve('tmp/sandbox-data') });
  });

  test('SANDBOX_DATA_DIR: blank is unset; a URL or an existing file is refused naming it', () => {
    assert.equal(readSandboxMainConfig({ SANDBOX_DATA_DIR: '  ' }).dataDir, undefined);
    assert.throws(
      () => readSandboxMainConfig({ SANDBOX_DATA_DIR: 'postgres://localhost/x' }),
      (err: Error) => err.message.includes('SANDBOX_DATA_DIR'),
    );
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-main-config-'));
    try {
      const file = join(dir, 'a-file');
      writeFileSync(file, '');
      assert.throws(
        () => readSandboxMainConfig({ SANDBOX_DATA_DIR: file }),
        (err: Error) => err.message.includes('SANDBOX_DATA_DIR') && err.message.includes('is a file'),
      );
      assert.equal(readSandboxMainConfig({ SANDBOX_DATA_DIR: dir }).dataDir, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const [name, value] of [
    ['SANDBOX_PORT', 'abc'],
    ['SANDBOX_PORT', '70000'],
    ['SANDBOX_HOST', 'http://x'],
    ['SANDBOX_TOKEN_LIFETIME_SECONDS', '0'],
    ['SANDBOX_TOKEN_LIFETIME_SECONDS', '1.5'],
    ['SANDBOX_SUBPROJECT_READY_MS', '-1'],
  ] as const) {
    test(`a malformed ${name}=${value} is refused with a message naming it`, () => {
      assert.throws(
        () => readSandboxMainConfig({ [name]: value }),
        (err: Error) => err.message.includes(name),
      );
    });
  }

  test('main exits 1 naming the variable', () => {
    const r = spawnSync(process.execPath, entryArgs('sandbox/main.ts'), {
      cwd: ROOT,
      env: { ...process.env, SANDBOX_PORT: 'nope' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /SANDBOX_PORT/);
  });

  test('main prints its URL, serves, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, entryArgs('sandbox/main.ts'), {
      cwd: ROOT,
      env: { ...process.env, SANDBOX_PORT: '0', RELAYFLOW_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = (await waitForOutput(child, /listening on (http:\/\/\S+)/, 30_000, 'npm run sandbox'))[1]!;
      const res = await fetch(`${url}/_sandbox/requests`);
      assert.equal(res.status, 200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
