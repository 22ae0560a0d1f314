// Without a dataDir the sandbox is what it always was: in memory, no store opened, no file written anywhere.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createSandbox } from '../../../sandbox/index.js';
import { FLUSH_INTERVAL_MS } from '../../../sandbox/core/persistence.js';
import { account, bearerToken, client, sleep, tempDir } from '../../helpers/sandbox-persistence.js';

describe('sandbox persistence: none without a dataDir', () => {
  test('a sandbox without dataDir writes no file, and a second one starts empty', async () => {
    const cwd = process.cwd();
    const scratch = tempDir('sandbox-in-memory-');
    // The working directory is where a wrongly defaulted relative path would land.
    process.chdir(scratch.dir);
    try {
      const sb = await createSandbox();
      await sb.listen();
      const c = client(sb.url, await bearerToken(sb.url));
      assert.equal((await c.oauth('POST', `/subprojects/v1alpha1/projects/${account.projectId}/subprojects`, { displayName: 'memory only' })).status, 200);
      await sleep(FLUSH_INTERVAL_MS * 3);
      await sb.close();
      assert.deepEqual(readdirSync(scratch.dir), []);

      const next = await createSandbox({ subprojectReadyAfterMs: 0 });
      await next.listen();
      const list = await client(next.url, await bearerToken(next.url)).oauth('GET', `/subprojects/v1alpha1/projects/${account.projectId}/subprojects`);
      assert.deepEqual(list.body.subprojects, []);
      await next.close();
    } finally {
      process.chdir(cwd);
      scratch.remove();
    }
  });
});
