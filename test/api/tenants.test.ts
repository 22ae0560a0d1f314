// Customers kept apart: a tenant key (keys file `tenant=<customer>`) starts processes stamped with its customer and
// lists, counts, reads and acts on its own customer's only; another customer's process answers as one that does not
// exist, and a business key another customer holds is refused. A key of every customer sees all, by tenant if asked.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { useHarness, uniqueName } from '../helpers/harness.js';
import { createApp } from '../helpers/campaigns.js';
import { freshNumber } from '../helpers/verification.js';
import { waitUntil } from '../helpers/provisioning.js';

const KEY_A = 'tenant-a-key-0123456789abcdef';
const KEY_B = 'tenant-b-key-0123456789abcdef';
const keysFile = join(mkdtempSync(join(tmpdir(), 'relayflow-tenants-')), 'api-keys');
writeFileSync(keysFile, `${KEY_A} operator tenant=acme\n${KEY_B} operator 600 tenant=globex\n`);

type Summary = { processId: string; tenant?: string };

describe('tenant API keys', () => {
  const h = useHarness({ env: { RELAYFLOW_API_KEYS_FILE: keysFile } });
  const as = (key: string, opts: InjectOptions) => h.app.inject({ ...opts, headers: { ...opts.headers, authorization: `Bearer ${key}` } });
  const path = (processId: string) => `/v1/processes/${encodeURIComponent(processId)}`;
  const subproject = async (key: string, displayName: string) => as(key, { method: 'POST', url: '/v1/subprojects', payload: { displayName } });
  /** The list as `key` sees it once visibility has caught up with `expected` (it is eventually consistent). */
  async function listed(key: string, query: string, expected: string[]): Promise<Summary[]> {
    let seen: Summary[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await as(key, { method: 'GET', url: `/v1/processes?${query}` });
      assert.equal(res.statusCode, 200, res.body);
      seen = res.json().processes;
      if (expected.every((id) => seen.some((p) => p.processId === id))) return seen;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.fail(`${expected.join(', ')} not listed for ${query}: ${JSON.stringify(seen)}`);
  }

  test('a tenant key says its customer', async () => {
    const me = await as(KEY_B, { method: 'GET', url: '/v1/keys/me' });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().tenant, 'globex');
    assert.equal((await as('test-api-key-0123456789abcdef', { method: 'GET', url: '/v1/keys/me' })).json().tenant, undefined);
  });

  test("each customer's key lists, counts and reads its own processes only", async () => {
    const a = await subproject(KEY_A, uniqueName('acme'));
    const b = await subproject(KEY_B, uniqueName('globex'));
    assert.equal(a.statusCode, 202, a.body);
    assert.equal(b.statusCode, 202, b.body);
    const [idA, idB] = [a.json().processId as string, b.json().processId as string];

    const seenByA = await listed(KEY_A, 'kind=subproject', [idA]);
    assert.ok(!seenByA.some((p) => p.processId === idB), 'the other customer is not listed');
    assert.ok(
      seenByA.every((p) => p.tenant === 'acme'),
      JSON.stringify(seenByA),
    );
    // Asking for the other customer changes nothing: a tenant key's own customer, whatever the query says.
    const asked = await as(KEY_A, { method: 'GET', url: '/v1/processes?kind=subproject&tenant=globex' });
    assert.ok(!asked.json().processes.some((p: Summary) => p.processId === idB));
    const seenByB = await listed(KEY_B, 'kind=subproject', [idB]);
    assert.ok(!seenByB.some((p) => p.processId === idA));

    const counts = await as(KEY_A, { method: 'GET', url: '/v1/processes/counts?kind=subproject' });
    assert.equal(counts.statusCode, 200, counts.body);
    assert.equal(counts.json().total, seenByA.length, 'counted as listed');

    const own = await as(KEY_A, { method: 'GET', url: path(idA) });
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json().tenant, 'acme');
    // Another customer's process is answered as one that does not exist: the same status and code.
    const other = await as(KEY_A, { method: 'GET', url: path(idB) });
    const unknown = await as(KEY_A, { method: 'GET', url: path(`subproject:${h.config.platform.credentials.projectId}:${uniqueName('none')}`) });
    assert.equal(other.statusCode, 404, other.body);
    assert.equal(other.json().error.code, unknown.json().error.code);
    assert.deepEqual(Object.keys(other.json().error), Object.keys(unknown.json().error), 'nothing more said of it');
    assert.equal((await as(KEY_A, { method: 'GET', url: `/v1/subprojects/${encodeURIComponent(idB)}` })).statusCode, 404);

    // A key of every customer sees both, and one customer's when it asks.
    await listed('test-api-key-0123456789abcdef', 'kind=subproject', [idA, idB]);
    const onlyAcme = await listed('test-api-key-0123456789abcdef', 'kind=subproject&tenant=acme', [idA]);
    assert.ok(!onlyAcme.some((p) => p.processId === idB));
  });

  test("an action on another customer's process is a 404 and changes nothing", async () => {
    const res = await as(KEY_A, { method: 'POST', url: '/v1/verifications', payload: { identity: freshNumber(), method: 'sms' } });
    assert.equal(res.statusCode, 201, res.body);
    const { processId } = res.json() as { processId: string };
    const report = (key: string) => as(key, { method: 'POST', url: `/v1/verifications/${encodeURIComponent(processId)}/report`, payload: { code: '0000' } });
    const before = (await as(KEY_A, { method: 'GET', url: path(processId) })).json();
    const foreign = await report(KEY_B);
    assert.equal(foreign.statusCode, 404, foreign.body);
    const after = (await as(KEY_A, { method: 'GET', url: path(processId) })).json();
    assert.equal(after.tenant, 'acme');
    assert.deepEqual([after.history, after.execution.historyLength], [before.history, before.execution.historyLength], 'no report reached it');
    // The owner's report reaches it (a wrong code is answered by the process itself) and is in its history.
    assert.notEqual((await report(KEY_A)).statusCode, 404);
    const reported = (await as(KEY_A, { method: 'GET', url: path(processId) })).json();
    assert.ok(reported.execution.historyLength > before.execution.historyLength, 'the owner reached it');
  });

  test("a tenant key's campaign goes through a shared app of the platform project or its customer's own subproject, never another's", async () => {
    const appId = await createApp(h, 50);
    const start = (key: string, projectId?: string) =>
      as(key, {
        method: 'POST',
        url: '/v1/campaigns/conversation',
        payload: { appId, ...(projectId ? { projectId } : {}), region: 'eu', message: { text: 'hello' }, recipients: [freshNumber()] },
      });
    const campaigns = async () => Number((await h.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM relayflow_campaigns'))[0]!.n);
    const refused = async (key: string, projectId: string | undefined, rule: string) => {
      const res = await start(key, projectId);
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(
        res.json().error.details.map((d: { field: string; rule: string }) => [d.field, d.rule]),
        [['body.projectId', rule]],
      );
      assert.doesNotMatch(res.body, /globex/, 'nothing of the other customer');
    };
    // The platform project's app is shared: the campaign is its customer's, and shares the app's rate as such.
    const shared = await start(KEY_B);
    assert.equal(shared.statusCode, 202, shared.body);
    const [row] = await h.store.sql.query<{ tenant: string | null }>('SELECT tenant FROM relayflow_campaigns WHERE id = $1', [shared.json().campaignId]);
    assert.equal(row?.tenant, 'globex');
    const before = await campaigns();
    await refused(KEY_B, 'no-such-project', 'not_customer_project');

    const made = await subproject(KEY_B, uniqueName('globex-sends'));
    assert.equal(made.statusCode, 202, made.body);
    const ready = await waitUntil(h, made.json().processId, (v) => v.state === 'READY', 'the subproject to be usable');
    const projectId = (ready.details as unknown as { subprojectId: string }).subprojectId;
    // Another customer's subproject is refused as one that is not there.
    await refused(KEY_A, projectId, 'not_customer_project');
    assert.equal(await campaigns(), before, 'a refused start stores nothing');

    const res = await start(KEY_B, projectId);
    assert.equal(res.statusCode, 202, res.body);
    assert.equal((await as(KEY_B, { method: 'GET', url: path(res.json().processId) })).json().tenant, 'globex');
  });

  test("a tenant key's bundle goes in a subproject of its customer's own, never another's", async () => {
    const field = (res: { statusCode: number; body: string; json: () => { error: { details: { field: string; rule: string }[] } } }) => {
      assert.equal(res.statusCode, 422, res.body);
      return res.json().error.details.map((d) => `${d.field} ${d.rule}`);
    };

    const theirs = await subproject(KEY_B, uniqueName('globex-bundles'));
    const ready = await waitUntil(h, theirs.json().processId, (v) => v.state === 'READY', 'the subproject to be usable');
    const theirProject = (ready.details as unknown as { subprojectId: string }).subprojectId;
    const bundle = (key: string, fields: Record<string, unknown>) =>
      as(key, { method: 'POST', url: '/v1/bundles', payload: { key: uniqueName('bundle'), displayName: 'Acme', region: 'EU', ...fields } });
    assert.deepEqual(field(await bundle(KEY_A, { subprojectId: theirProject, smsApp: true })), ['body.subprojectId not_customer_project']);
    assert.deepEqual(field(await bundle(KEY_A, { subprojectId: 'no-such-project', smsApp: true })), ['body.subprojectId not_customer_project']);
    // Its own subproject is its customer's.
    const own = await bundle(KEY_B, { subprojectId: theirProject, smsApp: true });
    assert.equal(own.statusCode, 202, own.body);
    assert.equal((await as(KEY_B, { method: 'GET', url: path(own.json().processId) })).json().tenant, 'globex');
  });

  test("a business key another customer holds is refused; the owner's repeat answers its process", async () => {
    const name = uniqueName('shared-name');
    const first = await subproject(KEY_A, name);
    assert.equal(first.statusCode, 202, first.body);
    const again = await subproject(KEY_A, name);
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().processId, first.json().processId);
    const taken = await subproject(KEY_B, name);
    assert.equal(taken.statusCode, 409, taken.body);
    assert.equal(taken.json().error.code, 'key_taken');
    assert.ok(!taken.body.includes('acme'), taken.body);
  });
});
