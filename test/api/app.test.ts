// The API's contract: authentication, validation that names the field and changes nothing, 404s, health, docs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startHarness, useHarness, TEST_API_KEY, uniqueName } from '../helpers/harness.js';

describe('API', () => {
  const h = useHarness();

  const subprojectPosts = async () =>
    ((await (await fetch(`${h.sandbox.url}/_sandbox/requests?area=subprojects&method=POST`)).json()) as { requests: unknown[] }).requests.length;

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

  const rejected: Array<[string, string | Record<string, unknown>, string, string]> = [
    ['malformed JSON', '{"displayName": ', 'body', 'json'],
    ['a missing field', {}, 'body.displayName', 'required'],
    ['a wrong type', { displayName: 42 }, 'body.displayName', 'type'],
    ['an unknown field', { displayName: uniqueName('unknown-field'), colour: 'blue' }, 'body.colour', 'unknown_field'],
    ['a too long name', { displayName: 'x'.repeat(101) }, 'body.displayName', 'maxLength'],
    ['a bad parent project ID', { displayName: uniqueName('bad-parent'), parentProjectId: 'has spaces' }, 'body.parentProjectId', 'pattern'],
  ];
  for (const [what, payload, field, rule] of rejected) {
    test(`${what} is a 400 naming ${field} and starts nothing`, async () => {
      const postsBefore = await subprojectPosts();
      const res = await h.api({ method: 'POST', url: '/v1/subprojects', payload: payload as never, headers: { 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json();
      assert.equal(body.error.code, 'validation_failed');
      assert.ok(
        body.error.details.some((d: { field: string; rule: string }) => d.field === field && d.rule === rule),
        JSON.stringify(body),
      );
      assert.match(body.error.message, new RegExp(field.replace('.', '\\.')));
      assert.equal(await subprojectPosts(), postsBefore, 'nothing sent to the platform');
      const name = typeof payload === 'object' ? payload.displayName : undefined;
      if (typeof name === 'string') {
        const id = encodeURIComponent(`subproject:${h.config.platform.credentials.projectId}:${name}`);
        assert.equal((await h.api({ method: 'GET', url: `/v1/processes/${id}` })).statusCode, 404, 'no process started');
      }
    });
  }

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

  test('processes are listed by kind and state', async () => {
    const started = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName: uniqueName('listed') } });
    const { processId } = started.json();
    await h.waitForState(processId, 'READY');
    // Visibility is eventually consistent: poll briefly.
    type Summary = { processId: string; runId: string; state: string };
    let found: Summary | undefined;
    for (let i = 0; i < 50 && !found; i++) {
      const res = await h.api({ method: 'GET', url: '/v1/processes?kind=subproject&state=READY' });
      found = (res.json().processes as Summary[]).find((p) => p.processId === processId && p.state === 'READY');
      if (!found) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(found, 'listed as READY');
    // A key followed again after a final state lists one entry per run: the run ID tells them apart.
    const one = await h.api({ method: 'GET', url: `/v1/processes/${encodeURIComponent(processId)}` });
    assert.equal(found.runId, one.json().execution.runId);
    const other = await h.api({ method: 'GET', url: '/v1/subprojects?state=FAILED' });
    assert.ok(!other.json().processes.some((p: { processId: string }) => p.processId === processId));
  });
});
