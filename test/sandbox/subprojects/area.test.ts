// Subprojects area of the sandbox: create, paginated list, readiness, validation.
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createSandbox, defaultSandboxAccount, type Sandbox } from '../../../sandbox/index.js';

const account = defaultSandboxAccount();
const auth = { authorization: `Basic ${Buffer.from(`${account.keyId}:${account.keySecret}`).toString('base64')}` };
const base = `/subprojects/v1alpha1/projects/${account.projectId}/subprojects`;

interface Subproject {
  projectId: string;
  displayName: string;
  parentProjectId: string;
  createTime: string;
  state: string;
}
interface ErrorBody {
  error: { code: number; message: string; status: string; details: { field: string; description: string }[] };
}

function create(sb: Sandbox, payload: unknown, headers: Record<string, string> = {}) {
  return sb.app.inject({ method: 'POST', url: base, headers: { ...auth, ...headers }, payload: payload as string });
}

describe('subprojects: create and list', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await createSandbox({ subprojectReadyAfterMs: 0 });
  });
  after(() => sb.close());

  test('creates a subproject resource', async () => {
    const res = await create(sb, { displayName: 'Acme EU' });
    assert.equal(res.statusCode, 200, res.body);
    const s = res.json() as Subproject;
    assert.equal(s.displayName, 'Acme EU');
    assert.equal(s.parentProjectId, account.projectId);
    assert.equal(s.state, 'ACTIVE');
    assert.ok(s.projectId.length >= 10);
    assert.ok(Math.abs(Date.parse(s.createTime) - Date.now()) < 5000);
    // The same displayName again is a second subproject: the platform does not deduplicate.
    const again = await create(sb, { displayName: 'Acme EU' });
    assert.notEqual((again.json() as Subproject).projectId, s.projectId);
  });

  test('25 subprojects come back in three pages of 10, 10 and 5, in creation order', async () => {
    await sb.app.inject({ method: 'POST', url: '/_sandbox/reset' });
    const names = Array.from({ length: 25 }, (_, i) => `sub ${String(i).padStart(2, '0')}`);
    for (const displayName of names) assert.equal((await create(sb, { displayName })).statusCode, 200);

    const seen: string[] = [];
    const sizes: number[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const res = await sb.app.inject({
        method: 'GET',
        url: `${base}?pageSize=10${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`,
        headers: { ...auth, accept: 'application/json' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as { subprojects: Subproject[]; nextPageToken: string };
      sizes.push(body.subprojects.length);
      seen.push(...body.subprojects.map((s) => s.displayName));
      pageToken = body.nextPageToken;
      assert.equal(typeof pageToken, 'string');
      pages++;
    } while (pageToken && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(sizes, [10, 10, 5]);
    assert.deepEqual(seen, names);
  });

  test('the default page size is 10; above 100 and a bad pageToken are 400', async () => {
    const res = await sb.app.inject({ method: 'GET', url: base, headers: auth });
    assert.equal((res.json() as { subprojects: unknown[] }).subprojects.length, 10);

    const big = await sb.app.inject({ method: 'GET', url: `${base}?pageSize=101`, headers: auth });
    assert.equal(big.statusCode, 400);
    const bigBody = big.json() as ErrorBody;
    assert.equal(bigBody.error.status, 'INVALID_ARGUMENT');
    assert.equal(bigBody.error.details[0]!.field, 'pageSize');

    const bad = await sb.app.inject({ method: 'GET', url: `${base}?pageToken=garbage`, headers: auth });
    assert.equal(bad.statusCode, 400);
    const badBody = bad.json() as ErrorBody;
    assert.match(badBody.error.message, /pageToken/);
    assert.equal(badBody.error.details[0]!.field, 'pageToken');
  });

  test('a project without subprojects lists none with an empty nextPageToken', async () => {
    const other = await createSandbox();
    try {
      const res = await other.app.inject({ method: 'GET', url: base, headers: auth });
      assert.deepEqual(res.json(), { subprojects: [], nextPageToken: '' });
    } finally {
      await other.close();
    }
  });
});

describe('subprojects: validation', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await createSandbox();
  });
  after(() => sb.close());

  const cases: [string, unknown, string][] = [
    ['missing displayName', {}, 'displayName'],
    ['displayName of the wrong type', { displayName: 42 }, 'displayName'],
    ['empty displayName', { displayName: '' }, 'displayName'],
    ['displayName over 100 characters', { displayName: 'x'.repeat(101) }, 'displayName'],
    ['an unknown field', { displayName: 'ok', colour: 'blue' }, 'colour'],
  ];
  for (const [name, payload, field] of cases) {
    test(`400 INVALID_ARGUMENT naming the field for ${name}`, async () => {
      const res = await create(sb, payload);
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json() as ErrorBody;
      assert.equal(body.error.code, 400);
      assert.equal(body.error.status, 'INVALID_ARGUMENT');
      assert.ok(body.error.message.includes(field), body.error.message);
      assert.ok(
        body.error.details.some((d) => d.field === field && d.description.length > 0),
        JSON.stringify(body.error.details),
      );
    });
  }

  test('400 "Invalid JSON payload" for a body that is not JSON', async () => {
    const res = await create(sb, '{"displayName": ', { 'content-type': 'application/json' });
    assert.equal(res.statusCode, 400);
    const body = res.json() as ErrorBody;
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.match(body.error.message, /Invalid JSON payload/);
  });

  test('authentication is checked before the body', async () => {
    const res = await sb.app.inject({
      method: 'POST',
      url: base,
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    assert.equal(res.statusCode, 401);
  });
});

describe('subprojects: usable with the parent project', () => {
  /** A request for the subproject's own project with the parent's key: the sender ID callback configuration (spec part F). */
  const useIt = (sb: Sandbox, projectId: string) =>
    sb.app.inject({
      method: 'PUT',
      url: `/senderid/v1/projects/${projectId}/callback-configuration`,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: { hmacSecret: 'a-secret' },
    });

  test('listed and readable at once; its project refused to the parent key (403) until subprojectReadyAfterMs has passed, then accepted', async () => {
    const sb = await createSandbox({ subprojectReadyAfterMs: 1000 });
    try {
      const s = (await create(sb, { displayName: 'soon' })).json() as Subproject;
      const read = await sb.app.inject({ method: 'GET', url: `${base}/${s.projectId}`, headers: auth });
      assert.equal(read.statusCode, 200, 'readable at once: being read says nothing about being usable');
      assert.deepEqual(read.json(), s);
      const listed = await sb.app.inject({ method: 'GET', url: base, headers: auth });
      assert.ok(
        (listed.json() as { subprojects: Subproject[] }).subprojects.some((x) => x.projectId === s.projectId),
        'listed at once',
      );

      const early = await useIt(sb, s.projectId);
      assert.equal(early.statusCode, 403, early.body);
      assert.match(early.body, new RegExp(`subproject ${s.projectId} is not yet usable with its parent project's key`));

      await new Promise((r) => setTimeout(r, 1050));
      const usable = await useIt(sb, s.projectId);
      assert.equal(usable.statusCode, 200, usable.body);
      assert.deepEqual(usable.json(), { hmacSecret: 'a-secret', projectId: s.projectId });

      const missing = await sb.app.inject({ method: 'GET', url: `${base}/nope`, headers: auth });
      assert.equal(missing.statusCode, 404);
      assert.equal((missing.json() as ErrorBody).error.status, 'NOT_FOUND');
    } finally {
      await sb.close();
    }
  });

  test("a project that is not one of the key's subprojects stays refused; a subproject cannot have subprojects", async () => {
    const sb = await createSandbox({ subprojectReadyAfterMs: 0 });
    try {
      const other = await useIt(sb, 'someone-elses-project');
      assert.equal(other.statusCode, 403);
      assert.match(other.body, /key not associated with the project someone-elses-project/);

      const s = (await create(sb, { displayName: 'outer' })).json() as Subproject;
      const nested = await sb.app.inject({
        method: 'POST',
        url: `/subprojects/v1alpha1/projects/${s.projectId}/subprojects`,
        headers: auth,
        payload: { displayName: 'inner' },
      });
      assert.equal(nested.statusCode, 400, nested.body);
      const body = nested.json() as ErrorBody;
      assert.equal(body.error.status, 'INVALID_ARGUMENT');
      assert.match(body.error.message, /parentProjectId' is a subproject: a subproject cannot have subprojects/);
    } finally {
      await sb.close();
    }
  });
});
