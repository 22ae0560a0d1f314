import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { createActivities } from '../../../processes/activities.js';
import { oneUrlPlatformClients } from '../../helpers/platform-config.js';
import { listenStub, sendJson } from '../../helpers/stub-server.js';

interface StubSubproject {
  projectId: string;
  displayName: string;
  parentProjectId: string;
  createTime: string;
}

/**
 * Stub platform: token service + subprojects (2 per page). `loseCreateAnswer` creates the subproject,
 * then drops the connection, as when the platform acted but its answer never arrived.
 */
async function startStub(t: TestContext, opts: { existing?: StubSubproject[]; loseCreateAnswer?: boolean; createAnswers?: Array<[number, string]> } = {}) {
  const subprojects = [...(opts.existing ?? [])];
  const createAnswers = [...(opts.createAnswers ?? [])];
  let loseNext = opts.loseCreateAnswer ?? false;
  const posts: string[] = [];
  const send = sendJson;
  const base = await listenStub(t, (req, res) => {
    const body = req.text;
    const url = new URL(req.url!, 'http://stub');
    if (url.pathname === '/auth/oauth2/token') return send(res, 200, { access_token: 'tok', expires_in: 3600 });
    if (req.headers.authorization !== 'Bearer tok') return send(res, 401, { error: { code: 401, message: 'no', status: 'UNAUTHENTICATED' } });
    const m = /^\/sub\/v1alpha1\/projects\/([^/]+)\/subprojects(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return send(res, 404, { error: { code: 404, message: 'no route', status: 'NOT_FOUND' } });
    const parent = m[1]!;
    if (req.method === 'POST') {
      const [status, code] = createAnswers.shift() ?? [200, 'OK'];
      if (status !== 200) return send(res, status, { error: { code: status, message: code.toLowerCase(), status: code, details: [] } });
      posts.push(body);
      const { displayName } = JSON.parse(body) as { displayName: string };
      const created = { projectId: `sp-new-${posts.length}`, displayName, parentProjectId: parent, createTime: '2025-06-01T00:00:00Z' };
      subprojects.push(created);
      if (loseNext) {
        loseNext = false;
        return req.socket.destroy();
      }
      return send(res, 200, { ...created, state: 'ACTIVE' });
    }
    const mine = subprojects.filter((s) => s.parentProjectId === parent);
    const start = Number(url.searchParams.get('pageToken') ?? 0);
    const next = start + 2 < mine.length ? String(start + 2) : '';
    return send(res, 200, { subprojects: mine.slice(start, start + 2), nextPageToken: next });
  });
  const activities = createActivities({
    clients: oneUrlPlatformClients(base, { urls: { subprojects: `${base}/sub` }, credentials: { projectId: 'parent-1' } }),
  });
  return { activities, posts, subprojects };
}

const existing = (n: number, displayName = `other-${n}`): StubSubproject => ({
  projectId: `sp-${n}`,
  displayName,
  parentProjectId: 'parent-1',
  createTime: `2025-01-0${n}T00:00:00Z`,
});

test('ensureSubproject returns the existing subproject with that displayName (found on page 2) without creating', async (t) => {
  const stub = await startStub(t, { existing: [existing(1), existing(2), existing(3), existing(4, 'acme'), existing(5)] });
  const result = await stub.activities.ensureSubproject({ parentProjectId: 'parent-1', displayName: 'acme' });
  assert.deepEqual(result, { projectId: 'sp-4', displayName: 'acme', parentProjectId: 'parent-1', createTime: '2025-01-04T00:00:00Z', created: false });
  assert.deepEqual(stub.posts, []);
});

test('ensureSubproject creates when no subproject has that displayName', async (t) => {
  const stub = await startStub(t, { existing: [existing(1), existing(2), existing(3)] });
  const result = await stub.activities.ensureSubproject({ parentProjectId: 'parent-1', displayName: 'acme' });
  assert.deepEqual(result, { projectId: 'sp-new-1', displayName: 'acme', parentProjectId: 'parent-1', createTime: '2025-06-01T00:00:00Z', created: true });
  assert.deepEqual(
    stub.posts.map((b) => JSON.parse(b)),
    [{ displayName: 'acme' }],
  );
});

test('ensureSubproject retried after a lost create answer does not create twice', async (t) => {
  const stub = await startStub(t, { existing: [existing(1), existing(2)], loseCreateAnswer: true });
  const input = { parentProjectId: 'parent-1', displayName: 'acme' };
  await assert.rejects(stub.activities.ensureSubproject(input), (err: unknown) => {
    assert.ok(err instanceof ApplicationFailure);
    assert.equal(err.type, 'PlatformUnavailableError');
    assert.equal(err.nonRetryable, false);
    return true;
  });
  // What Temporal's retry would do next:
  const retried = await stub.activities.ensureSubproject(input);
  assert.equal(retried.created, false);
  assert.equal(retried.projectId, 'sp-new-1');
  assert.equal(stub.posts.length, 1);
  assert.equal(stub.subprojects.filter((s) => s.displayName === 'acme').length, 1);
});

test('ensureSubproject: a refused create propagates as a mapped failure (validation and auth final, unavailable retried)', async (t) => {
  const stub = await startStub(t, {
    createAnswers: [
      [400, 'INVALID_ARGUMENT'],
      [403, 'PERMISSION_DENIED'],
      [503, 'UNAVAILABLE'],
    ],
  });
  const input = { parentProjectId: 'parent-1', displayName: 'acme' };
  await assert.rejects(stub.activities.ensureSubproject(input), { name: 'ApplicationFailure', type: 'PlatformValidationError', nonRetryable: true });
  await assert.rejects(stub.activities.ensureSubproject(input), { name: 'ApplicationFailure', type: 'PlatformAuthError', nonRetryable: true });
  await assert.rejects(stub.activities.ensureSubproject(input), { name: 'ApplicationFailure', type: 'PlatformUnavailableError', nonRetryable: false });
  assert.equal(stub.posts.length, 0, 'nothing was created');
});
