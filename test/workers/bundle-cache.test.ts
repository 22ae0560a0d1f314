// The workflow bundle cache (workers/bundle-cache.ts) with real webpack builds of a small workflow tree: a second
// build with nothing changed reuses the file; a change to the workflow file, or to a file it imports, is another
// key and a new build that holds the change; a new file where an import could resolve, a corrupt bundle or a
// corrupt manifest builds again.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cachedWorkflowBundle } from '../../workers/bundle-cache.js';
import { FAILURE_CONVERTER_PATH } from '../../common/data-converter.js';

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

describe('workflow bundle cache', () => {
  // Inside the checkout, so that the workflows resolve @temporalio/workflow from its node_modules.
  let dir = '';
  let cacheDir = '';
  const workflows = () => join(dir, 'workflows', 'index.ts');
  const build = () =>
    cachedWorkflowBundle(cacheDir, {
      options: { workflowsPath: workflows(), workflowInterceptorModules: [], failureConverterPath: FAILURE_CONVERTER_PATH },
      logger: quiet,
    });
  const write = (file: string, text: string) => writeFile(join(dir, 'workflows', file), text);

  before(async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(resolve('.relayflow'), { recursive: true });
    dir = await mkdtemp(resolve('.relayflow/bundle-cache-test-'));
    cacheDir = join(dir, 'cache');
    await mkdir(join(dir, 'workflows'), { recursive: true });
    await write('greeting.ts', "export const greeting = 'hello';\n");
    await write('index.ts', "import { greeting } from './greeting.js';\nexport async function greet(): Promise<string> {\n  return greeting;\n}\n");
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('nothing changed: the second build reuses the file; an imported file or the workflow file changed: a new key and a new bundle', async () => {
    const first = await build();
    assert.equal(first.reused, false);
    const built = await stat(first.path);
    assert.match(await readFile(first.path, 'utf8'), /'hello'/);

    const second = await build();
    assert.deepEqual([second.reused, second.key, second.path], [true, first.key, first.path]);
    assert.equal((await stat(second.path)).mtimeMs, built.mtimeMs, 'the bundle file was not written again');

    await write('greeting.ts', "export const greeting = 'hello again';\n");
    const imported = await build();
    assert.equal(imported.reused, false);
    assert.notEqual(imported.key, first.key);
    assert.match(await readFile(imported.path, 'utf8'), /'hello again'/);

    await write('index.ts', "import { greeting } from './greeting.js';\nexport async function greet(): Promise<string> {\n  return `${greeting}!`;\n}\n");
    const own = await build();
    assert.equal(own.reused, false);
    assert.notEqual(own.key, imported.key);
    assert.equal((await build()).reused, true);

    // Back to the first sources: the first entry is still kept, and reused.
    await write('greeting.ts', "export const greeting = 'hello';\n");
    await write('index.ts', "import { greeting } from './greeting.js';\nexport async function greet(): Promise<string> {\n  return greeting;\n}\n");
    assert.deepEqual(await build().then((b) => [b.reused, b.key]), [true, first.key]);
  });

  test('a file where an import may resolve appears: built again', async () => {
    const was = await build();
    // webpack probed workflows/greeting.ts.ts, greeting.ts.js... and the package.json files up the tree: one appears.
    await write('package.json', '{}\n');
    try {
      const now = await build();
      assert.equal(now.reused, false);
      assert.notEqual(now.key, was.key);
    } finally {
      await rm(join(dir, 'workflows', 'package.json'));
    }
  });

  test('a corrupt bundle or manifest is built again, under the same key', async () => {
    const was = await build();
    await writeFile(was.path, (await readFile(was.path, 'utf8')).slice(0, 1000));
    const rebuilt = await build();
    assert.deepEqual([rebuilt.reused, rebuilt.key], [false, was.key]);
    assert.match(await readFile(rebuilt.path, 'utf8'), /'hello'/);
    assert.equal((await build()).reused, true);

    await writeFile(join(cacheDir, `${was.key}.json`), '{"format": 1, "files": ');
    assert.equal((await build()).reused, false);
    assert.equal((await build()).reused, true);
  });
});
