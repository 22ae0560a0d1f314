// POST /_sandbox/reset on a persistent sandbox clears what it saved too: started again on the same directory,
// the sandbox has exactly the state of a new one (its token secret aside, which a reset never changes).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { account, bearerToken, client, savedStates, seedDataDir, tempDir } from '../../helpers/sandbox-persistence.js';

const SUB = `/subprojects/v1alpha1/projects/${account.projectId}/subprojects`;
const TEMPLATES = `/provisioning/v1/projects/${account.projectId}/chata/templates`;

describe('sandbox persistence: reset', () => {
  const data = tempDir('sandbox-persist-reset-');
  before(() => seedDataDir(data.dir));
  const open: Sandbox[] = [];
  const start = async () => {
    const sb = await createSandbox({ dataDir: data.dir, subprojectReadyAfterMs: 0, provisioningReviewer: { templates: { delayMs: 60_000 } } });
    open.push(sb);
    await sb.listen();
    return sb;
  };
  after(async () => {
    for (const sb of open) await sb.close();
    data.remove();
  });

  test('a reset, then a restart: nothing of before the reset comes back, pending reviews included', async () => {
    const first = await start();
    const c1 = client(first.url, await bearerToken(first.url));
    assert.equal((await c1.oauth('POST', SUB, { displayName: 'before the reset' })).status, 200);
    await first.close();

    // Kept by the restart (so the reset below has something to clear)...
    const second = await start();
    const c2 = client(second.url, await bearerToken(second.url));
    assert.equal((await c2.oauth('GET', SUB)).body.subprojects.length, 1);
    const template = await c2.oauth('POST', TEMPLATES, {
      name: 'pending',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hi.' }],
      status: 'SUBMIT',
    });
    assert.equal(template.body.state, 'IN_PROGRESS', JSON.stringify(template.body));
    assert.equal((await c2.control('POST', '/reset')).status, 200);
    await second.close();

    // ...and forgotten after the reset.
    const third = await start();
    const c3 = client(third.url, await bearerToken(third.url));
    assert.deepEqual((await c3.oauth('GET', SUB)).body.subprojects, []);
    assert.equal((await c3.oauth('GET', `${TEMPLATES}/${template.body.id}`)).status, 404);
    const fresh = await createSandbox();
    open.push(fresh);
    const { tokens: _restored, ...restored } = savedStates(third);
    const { tokens: _new, ...empty } = savedStates(fresh);
    assert.deepEqual(restored, empty);
  });
});
