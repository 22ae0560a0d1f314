// The API's contract: authentication, validation that names the field and changes nothing, 404s, health, docs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startHarness, useHarness, TEST_API_KEY } from '../helpers/harness.js';

describe('API', () => {
  const h = useHarness();

  test('every non-health route needs an API key', async () => {
    const none = await h.app.inject({ method: 'GET', url: '/v1/processes' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error.code, 'unauthorized');
    assert.ok(none.json().requestId);
    const wrong = await h.app.inject({ method: 'GET', url: '/v1/processes', headers: { authorization: 'Bearer not-the-key-000000000000000' } });
    assert.equal(wrong.statusCode, 401);
    const header = await h.app.inject({ method: 'GET', url: '/v1/processes', headers: { 'x-api-key': TEST_API_KEY } });
    assert.equal(header.statusCode, 200);
    const codec = await h.app.inject({ method: 'POST', url: '/codec/decode', payload: { payloads: [] } });
    assert.equal(codec.statusCode, 401, 'the codec endpoint decrypts: it needs a key too');
  });

  test('health and readiness are public; readiness checks Temporal', async () => {
    assert.equal((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    const ready = await h.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().checks.temporal, 'ok');
  });

  test('with a public URL, readiness also shows whether the platform holds the callbacks, without failing on it', async () => {
    const deployed = await startHarness({ env: { RELAYFLOW_PUBLIC_URL: 'https://relayflow.example.test' }, withoutWorker: true });
    try {
      const ready = await deployed.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200, 'informational: processes fall back to polling');
      const { checks } = ready.json();
      assert.equal(checks.temporal, 'ok');
      // The test harness registered its own listening address, not the public URL.
      assert.match(checks.provisioningWebhook, /^missing: no provisioning webhook targets https:\/\/relayflow\.example\.test\//);
      assert.match(checks.verificationCallback, /^missing: the sandbox calls back/);
    } finally {
      await deployed.close();
    }
    const local = await h.app.inject({ method: 'GET', url: '/readyz' });
    assert.deepEqual(Object.keys(local.json().checks), ['temporal'], 'nothing to read back without a public URL');
  });

  test('the OpenAPI document describes the routes and is public', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.ok(doc.paths['/v1/subprojects'].post, 'start subproject documented');
    assert.ok(doc.paths['/v1/processes/{processId}'].get, 'process read documented');
    assert.equal((await h.app.inject({ method: 'GET', url: '/docs' })).statusCode < 400, true);
  });

  test('an unknown process is a 404, also through the kind-specific route', async () => {
    const a = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent('subproject:nope:nope')}` });
    assert.equal(a.statusCode, 404);
    assert.equal(a.json().error.code, 'not_found');
    const b = await h.api({ method: 'GET', url: `/v1/subprojects/${encodeURIComponent('verification:123')}` });
    assert.equal(b.statusCode, 404);
    const c = await h.api({ method: 'GET', url: '/v1/nothing-here' });
    assert.equal(c.statusCode, 404);
  });

  test('list filters are validated', async () => {
    const badState = await h.api({ method: 'GET', url: '/v1/processes?state=ready;DROP' });
    assert.equal(badState.statusCode, 400);
    assert.equal(badState.json().error.details[0].field, 'query.state');
    const badKind = await h.api({ method: 'GET', url: '/v1/processes?kind=spaceship' });
    assert.equal(badKind.statusCode, 400);
    const badSize = await h.api({ method: 'GET', url: '/v1/processes?pageSize=5000' });
    assert.equal(badSize.statusCode, 400);
    assert.equal(badSize.json().error.details[0].field, 'query.pageSize');
  });
});
