// The preflight's own logic with stand-in finders: its log lines, the env it hands on, that the three run
// side by side, and that one error names every missing dependency.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { combineFailures, dependencyEnv, describeDependency, ensureTestDependencies } from '../../scripts/lib/test-deps.js';

const cli = { kind: 'path' as const, path: '/c/temporal', source: 'PATH' };
const pgBin = { bin: '/p/bin', source: 'RELAYFLOW_PG_BIN', version: 'postgres (PostgreSQL) 18.4' };
const chromium = { path: '/usr/bin/chromium', source: 'PATH' };

describe('test dependencies', () => {
  test('a log line says where each came from, and how long it took when that was an install', () => {
    assert.equal(describeDependency('Chromium', '/usr/bin/chromium', 'PATH', 12), 'Chromium: /usr/bin/chromium (PATH)');
    assert.equal(describeDependency('Temporal CLI', '/c/temporal', 'pip install', 9_140), 'Temporal CLI: /c/temporal (pip install, took 9.1 s)');
  });

  test('the env for the test processes, without a CLI path when the SDK downloads it', () => {
    assert.deepEqual(dependencyEnv({ temporalCli: cli, postgresBin: '/p/bin', chromium: '/usr/bin/chromium' }), {
      RELAYFLOW_PG_BIN: '/p/bin',
      CHROMIUM_PATH: '/usr/bin/chromium',
      RELAYFLOW_TEMPORAL_CLI: '/c/temporal',
    });
    assert.equal(dependencyEnv({ temporalCli: { kind: 'sdk-download', source: 'SDK' }, postgresBin: '/p', chromium: '/c' }).RELAYFLOW_TEMPORAL_CLI, undefined);
  });

  test('all found: the results, their env and one line each', async () => {
    const logs: string[] = [];
    const deps = await ensureTestDependencies({
      log: (m) => logs.push(m),
      finders: { temporalCli: async () => cli, postgres: async () => pgBin, chromium: async () => chromium },
    });
    assert.deepEqual({ ...deps, env: undefined }, { temporalCli: cli, postgresBin: '/p/bin', chromium: '/usr/bin/chromium', env: undefined });
    assert.equal(deps.env.RELAYFLOW_PG_BIN, '/p/bin');
    assert.deepEqual(logs.slice(0, 3).sort(), [
      'Chromium: /usr/bin/chromium (PATH)',
      'PostgreSQL: /p/bin (RELAYFLOW_PG_BIN, postgres (PostgreSQL) 18.4)',
      'Temporal CLI: /c/temporal (PATH)',
    ]);
    assert.match(logs[3]!, /^test dependencies ready in \d+\.\d s$/);
  });

  test('the three are looked for side by side', async () => {
    // Each finder waits until all three have started: run one after another, this would never finish.
    let started = 0;
    let release!: () => void;
    const allStarted = new Promise<void>((r) => (release = r));
    const gate = async <T>(value: T): Promise<T> => {
      if (++started === 3) release();
      await allStarted;
      return value;
    };
    const deps = await ensureTestDependencies({
      log: () => undefined,
      finders: { temporalCli: () => gate(cli), postgres: () => gate(pgBin), chromium: () => gate(chromium) },
    });
    assert.equal(deps.chromium, '/usr/bin/chromium');
  });

  test('two missing: one error names both, with their own instructions', async () => {
    const err = await ensureTestDependencies({
      log: () => undefined,
      finders: {
        temporalCli: async () => cli,
        postgres: async () => {
          throw new Error('No PostgreSQL server binaries.\n- sudo apt-get install postgresql');
        },
        chromium: async () => {
          throw new Error('Chromium not found: `sudo apt-get install chromium`');
        },
      },
    }).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(err);
    assert.equal(
      err.message,
      combineFailures([
        { name: 'PostgreSQL', error: new Error('No PostgreSQL server binaries.\n- sudo apt-get install postgresql') },
        { name: 'Chromium', error: new Error('Chromium not found: `sudo apt-get install chromium`') },
      ]).message,
    );
    assert.equal(
      err.message,
      'The test suite is missing PostgreSQL, Chromium.\nPostgreSQL:\n  No PostgreSQL server binaries.\n  - sudo apt-get install postgresql\nChromium:\n  Chromium not found: `sudo apt-get install chromium`',
    );
  });
});
