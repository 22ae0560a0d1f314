// The subproject routes: a bad start is a 400 naming the field and the rule that sends nothing to the platform and
// starts nothing; started subprojects are listed by kind and state.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHarness, uniqueName } from '../../helpers/harness.js';

describe('subproject routes', () => {
  const h = useHarness();

  const subprojectPosts = async () =>
    ((await (await fetch(`${h.sandbox.url}/_sandbox/requests?area=subprojects&method=POST`)).json()) as { requests: unknown[] }).requests.length;

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
