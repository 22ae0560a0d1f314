// Where Chromium comes from: fakes on a fake PATH for the order and the apt-get install (nothing is
// installed), and the machine's own Chromium for the real look-up.
import assert from 'node:assert/strict';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { findChromium } from '../../scripts/lib/chromium.js';
import { exe, tempDirs } from '../helpers/fake-exe.js';

const dir = tempDirs('relayflow-chromium-test-');

describe('findChromium', () => {
  test('CHROMIUM_PATH wins over chromium on PATH', async () => {
    const [a, bin] = [await dir(), await dir()];
    const explicit = await exe(join(a, 'chrome'));
    await exe(join(bin, 'chromium'));
    assert.deepEqual(await findChromium({ env: { CHROMIUM_PATH: explicit, PATH: bin } }), { path: explicit, source: 'CHROMIUM_PATH' });
  });

  test('a CHROMIUM_PATH that does not run fails at once', async () => {
    const broken = await exe(join(await dir(), 'chromium'), 'echo "snap not available" >&2; exit 1');
    await assert.rejects(findChromium({ env: { CHROMIUM_PATH: broken, PATH: '' } }), /CHROMIUM_PATH: .*--version failed \(snap not available\)/);
    await assert.rejects(
      findChromium({ env: { CHROMIUM_PATH: '/nonexistent/chromium', PATH: '' } }),
      /CHROMIUM_PATH: "\/nonexistent\/chromium" is not an executable file/,
    );
  });

  test('chromium-browser on PATH counts too', async () => {
    const bin = await dir();
    const path = await exe(join(bin, 'chromium-browser'));
    assert.deepEqual(await findChromium({ env: { PATH: bin }, root: false }), { path, source: 'PATH' });
  });

  test('not root: fails at once with the command that installs it, apt-get untouched', async () => {
    const bin = await dir();
    await exe(join(bin, 'apt-get'), `touch ${bin}/apt-get-ran`);
    await assert.rejects(findChromium({ env: { PATH: bin }, root: false }), /Chromium not found .*`sudo apt-get install chromium` or set CHROMIUM_PATH/);
    await assert.rejects(access(join(bin, 'apt-get-ran')), /ENOENT/);
  });

  test('root without apt-get: fails at once', async () => {
    await assert.rejects(findChromium({ env: { PATH: await dir() }, root: true }), /Chromium not found .*sudo apt-get install chromium/);
  });

  test('root with apt-get: installs chromium, says so, and uses it', async () => {
    const bin = await dir();
    const calls = join(bin, 'calls');
    // The fake apt-get records its arguments and DEBIAN_FRONTEND; `install` puts a chromium on PATH.
    await exe(
      join(bin, 'apt-get'),
      `echo "$DEBIAN_FRONTEND $*" >> ${calls}\nif [ "$1" = install ]; then printf '#!/bin/sh\\n' > ${bin}/chromium; chmod +x ${bin}/chromium; fi`,
    );
    const logs: string[] = [];
    const found = await findChromium({ env: { PATH: bin }, root: true, log: (m) => logs.push(m) });
    assert.deepEqual(found, { path: join(bin, 'chromium'), source: 'apt-get install chromium' });
    assert.deepEqual((await readFile(calls, 'utf8')).trim().split('\n'), [
      'noninteractive update -qq',
      'noninteractive install -y -qq --no-install-recommends chromium',
    ]);
    assert.match(logs[0]!, /^installing Chromium with `apt-get install chromium`/);
    assert.match(logs[1]!, /^installed Chromium in \d+\.\d s$/);
  });

  test('an apt-get that fails: the error says so and how else to supply it', async () => {
    const bin = await dir();
    await exe(join(bin, 'apt-get'), 'echo "E: Unable to locate package chromium" >&2; exit 100');
    await assert.rejects(
      findChromium({ env: { PATH: bin }, root: true }),
      /`apt-get install chromium` failed \(E: Unable to locate package chromium\).*set CHROMIUM_PATH/,
    );
  });

  test("this machine's Chromium is found on PATH and runs", async () => {
    const found = await findChromium({ env: { PATH: process.env.PATH } });
    assert.match(found.path, /chromium/);
  });
});
