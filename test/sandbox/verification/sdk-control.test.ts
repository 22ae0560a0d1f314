// The sandbox's SDK controls (/_sandbox/verification/sdk/verifications): the app's SDK on a device starting a
// verification on the platform and reporting its code, without the application's backend: a wrong code answers FAIL
// and leaves it PENDING, the right one ends it SUCCESSFUL (source manual); a flash call reports its CLI; a bad start
// is the platform's 400 naming the field, an unknown ID a 404, a Data verification takes no code.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';

describe('the sandbox plays an SDK', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await createSandbox();
  });
  after(() => sb.close());

  const post = async (path: string, body: unknown) => {
    const res = await sb.app.inject({ method: 'POST', url: `/_sandbox/verification/sdk/verifications${path}`, payload: body as object });
    return { status: res.statusCode, body: res.json() as Record<string, unknown> };
  };
  const phone = async (endpoint: string) =>
    (
      (await sb.app.inject({ method: 'GET', url: `/_sandbox/verification/phones/${encodeURIComponent(endpoint)}` })).json() as {
        messages: { verificationId: string; code?: string; cli?: string }[];
      }
    ).messages;

  test('starts a verification and reports its code: a wrong one first, then the right one', async () => {
    const identity = '+46700000711';
    const started = await post('', { identity, reference: 'app-login-1' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.equal(started.body.status, 'PENDING');
    assert.equal(started.body.reference, 'app-login-1');
    const id = started.body.id as string;
    const { code } = (await phone(identity)).find((m) => m.verificationId === id)!;
    const wrong = await post(`/${id}/report`, { code: code === '0000' ? '1111' : '0000' });
    assert.deepEqual([wrong.status, wrong.body.status, wrong.body.reason], [200, 'FAIL', 'Invalid code']);
    const right = await post(`/${id}/report`, { code: code! });
    assert.deepEqual([right.status, right.body.status, right.body.source], [200, 'SUCCESSFUL', 'manual']);
  });

  test("a flash call reports the calling number's CLI", async () => {
    const identity = '+46700000712';
    const started = await post('', { identity, method: 'flashcall' });
    const id = started.body.id as string;
    const { cli } = (await phone(identity)).find((m) => m.verificationId === id)!;
    assert.equal((await post(`/${id}/report`, { code: cli! })).body.status, 'SUCCESSFUL');
  });

  test('bad input: the platform 400 naming the field, 404 for an unknown ID, 400 for a code to a Data verification', async () => {
    const bad = await post('', { identity: '12345' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /identity\.endpoint/);
    assert.equal((await post('/no-such-id/report', { code: '1234' })).status, 404);
    const seamless = await post('', { identity: '+46700000713', method: 'seamless' });
    assert.equal((await post(`/${seamless.body.id as string}/report`, { code: '1234' })).status, 400);
  });
});
