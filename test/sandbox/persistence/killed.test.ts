// `npm start` killed with SIGKILL: no close, no final flush. What changed more than one flush interval before
// the kill is in the store, and a sandbox started on the same directory serves it (and old tokens).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { FLUSH_INTERVAL_MS } from '../../../sandbox/core/persistence.js';
import { account, bearerToken, client, seedDataDir, sleep, tempDir } from '../../helpers/sandbox-persistence.js';
import { waitForOutput } from '../../helpers/child-output.js';
import { entryArgs } from '../../helpers/compiled-tree.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SUB = `/subprojects/v1alpha1/projects/${account.projectId}/subprojects`;

describe('sandbox persistence: a killed sandbox', () => {
  const data = tempDir('sandbox-persist-kill-');
  before(() => seedDataDir(data.dir));
  let restarted: Sandbox | undefined;
  after(async () => {
    await restarted?.close();
    data.remove();
  });

  test('loses at most the last flush interval: earlier changes survive a SIGKILL', async () => {
    const child = spawn(process.execPath, [...entryArgs('test/helpers/sandbox-process.ts'), data.dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    let token: string;
    try {
      const url = (await waitForOutput(child, /listening on (http:\/\/\S+)/, 120_000, 'the sandbox process'))[1]!;
      token = await bearerToken(url);
      const created = await client(url, token).oauth('POST', SUB, { displayName: 'survives a SIGKILL' });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      await sleep(FLUSH_INTERVAL_MS * 3);
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }

    restarted = await createSandbox({ dataDir: data.dir, subprojectReadyAfterMs: 0 });
    await restarted.listen();
    // The token is the one the killed process issued: its secret was saved too.
    const list = await client(restarted.url, token).oauth('GET', SUB);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(
      list.body.subprojects.map((s: { displayName: string }) => s.displayName),
      ['survives a SIGKILL'],
    );
  });
});
