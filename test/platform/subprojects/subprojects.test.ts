import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { createPlatformClients } from '../../../platform/index.js';
import { OAuthTokenRegistry } from '../../../platform/auth/oauth.js';
import { PlatformHttp } from '../../../platform/http.js';
import { SubprojectsClient } from '../../../platform/subprojects/client.js';
import type { Subproject } from '../../../common/wire/subprojects.js';
import { PlatformAuthError, PlatformNotFoundError, PlatformValidationError } from '../../../platform/errors.js';
import { oneUrlPlatformClients, oneUrlPlatformConfig, type OneUrlOptions } from '../../helpers/platform-config.js';
import { listenStub, sendJson } from '../../helpers/stub-server.js';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  accept: string | undefined;
  body: string;
}

/** Stub of the token service and the subprojects interface (pages of `pageSize`, default 2). */
async function startSubprojectsStub(t: TestContext, opts: { existing?: Subproject[]; deniedGets?: number } = {}) {
  const subprojects = [...(opts.existing ?? [])];
  let deniedGets = opts.deniedGets ?? 0;
  const seen: Seen[] = [];
  const send = sendJson;
  const error = (res: ServerResponse, code: number, status: string) => send(res, code, { error: { code, message: status.toLowerCase(), status, details: [] } });

  const base = await listenStub(t, (req, res) => {
    const body = req.text;
    const url = new URL(req.url!, 'http://stub');
    seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, accept: req.headers.accept, body });
    if (url.pathname === '/auth/oauth2/token') return send(res, 200, { access_token: 'tok', expires_in: 3600 });
    const m = /^\/sub\/v1alpha1\/projects\/([^/]+)\/subprojects(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return error(res, 404, 'NOT_FOUND');
    if (req.headers.authorization !== 'Bearer tok' && !req.headers.authorization?.startsWith('Basic ')) return error(res, 401, 'UNAUTHENTICATED');
    const parent = decodeURIComponent(m[1]!);
    const id = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
    const mine = subprojects.filter((s) => s.parentProjectId === parent);

    if (req.method === 'POST' && id === undefined) {
      const { displayName } = JSON.parse(body) as { displayName?: string };
      if (!displayName) return error(res, 400, 'INVALID_ARGUMENT');
      const created = {
        projectId: `sp-${subprojects.length + 1}`,
        displayName,
        parentProjectId: parent,
        createTime: new Date().toISOString(),
        state: 'ACTIVE',
      };
      subprojects.push(created);
      return send(res, 200, created);
    }
    if (req.method === 'GET' && id === undefined) {
      const size = Number(url.searchParams.get('pageSize') ?? 2);
      const start = Number(url.searchParams.get('pageToken') ?? 0);
      const next = start + size < mine.length ? String(start + size) : '';
      return send(res, 200, { subprojects: mine.slice(start, start + size), ...(next ? { nextPageToken: next } : {}) });
    }
    if (req.method === 'GET' && id !== undefined) {
      const found = mine.find((s) => s.projectId === id);
      if (!found) return error(res, 404, 'NOT_FOUND');
      if (deniedGets > 0) {
        deniedGets -= 1;
        return error(res, 403, 'PERMISSION_DENIED');
      }
      return send(res, 200, found);
    }
    return error(res, 404, 'NOT_FOUND');
  });
  return { base, seen, subprojects };
}

const options = (base: string): OneUrlOptions => ({
  urls: { subprojects: `${base}/sub/` },
  credentials: { projectId: 'parent-1', keyId: 'key-id', keySecret: 'key-secret', appKey: 'app', mmsApiKey: 'mms' },
});
const configFor = (base: string) => oneUrlPlatformConfig(base, options(base));
const clientsFor = (base: string) => oneUrlPlatformClients(base, options(base));

const sp = (n: number, parent = 'parent-1'): Subproject => ({
  projectId: `existing-${n}`,
  displayName: `name-${n}`,
  parentProjectId: parent,
  createTime: `2025-01-0${n}T00:00:00Z`,
});

test('listAll follows pagination across 3 pages', async (t) => {
  const stub = await startSubprojectsStub(t, { existing: [sp(1), sp(2), sp(3), sp(4), sp(5), sp(6, 'other-parent')] });
  const { subprojects } = clientsFor(stub.base);
  const all: Subproject[] = [];
  for await (const s of subprojects.listAll('parent-1')) all.push(s);
  assert.deepEqual(
    all.map((s) => s.projectId),
    ['existing-1', 'existing-2', 'existing-3', 'existing-4', 'existing-5'],
  );

  const lists = stub.seen.filter((r) => r.method === 'GET');
  assert.deepEqual(
    lists.map((r) => r.url),
    [
      '/sub/v1alpha1/projects/parent-1/subprojects',
      '/sub/v1alpha1/projects/parent-1/subprojects?pageToken=2',
      '/sub/v1alpha1/projects/parent-1/subprojects?pageToken=4',
    ],
  );
  for (const r of lists) {
    assert.equal(r.accept, 'application/json');
    assert.equal(r.authorization, 'Bearer tok');
  }
  assert.equal(stub.seen.filter((r) => r.url === '/auth/oauth2/token').length, 1);
});

test('listPage passes pageSize and pageToken and normalises a missing nextPageToken to ""', async (t) => {
  const stub = await startSubprojectsStub(t, { existing: [sp(1), sp(2), sp(3)] });
  const { subprojects } = clientsFor(stub.base);
  const first = await subprojects.listPage('parent-1', { pageSize: 2 });
  assert.equal(first.subprojects.length, 2);
  assert.equal(first.nextPageToken, '2');
  const last = await subprojects.listPage('parent-1', { pageSize: 2, pageToken: first.nextPageToken });
  assert.deepEqual(last, { subprojects: [sp(3)], nextPageToken: '' });
  assert.equal(stub.seen.at(-1)!.url, '/sub/v1alpha1/projects/parent-1/subprojects?pageSize=2&pageToken=2');
});

test('listAll stops on a repeated page token instead of looping', async (t) => {
  const baseUrl = await listenStub(t, (_req, res) => sendJson(res, 200, { subprojects: [sp(1)], nextPageToken: 'same' }));
  const http = new PlatformHttp({ timeoutMs: 2000 });
  const client = new SubprojectsClient({
    http,
    baseUrl,
    credentials: { keyId: 'k', keySecret: 's' },
    basicAuth: true,
  });
  await assert.rejects(async () => {
    for await (const _ of client.listAll('p')) void _;
  }, /page token repeated/);
});

test('create posts the displayName and returns the resource', async (t) => {
  const stub = await startSubprojectsStub(t);
  const { subprojects } = clientsFor(stub.base);
  const created = await subprojects.create('parent-1', { displayName: 'acme' });
  assert.equal(created.displayName, 'acme');
  assert.equal(created.parentProjectId, 'parent-1');
  assert.equal(created.projectId, 'sp-1');
  const post = stub.seen.find((r) => r.method === 'POST' && r.url.startsWith('/sub/'))!;
  assert.equal(post.url, '/sub/v1alpha1/projects/parent-1/subprojects');
  assert.deepEqual(JSON.parse(post.body), { displayName: 'acme' });
  await assert.rejects(subprojects.create('parent-1', { displayName: '' }), PlatformValidationError);
});

test('get: 200 resource, 403 PERMISSION_DENIED while not usable, 404 unknown', async (t) => {
  const stub = await startSubprojectsStub(t, { existing: [sp(1)], deniedGets: 1 });
  const { subprojects } = clientsFor(stub.base);
  await assert.rejects(subprojects.get('parent-1', 'existing-1'), (err: unknown) => {
    assert.ok(err instanceof PlatformAuthError);
    assert.equal(err.httpStatus, 403);
    assert.equal(err.code, 'PERMISSION_DENIED');
    return true;
  });
  assert.deepEqual(await subprojects.get('parent-1', 'existing-1'), sp(1));
  await assert.rejects(subprojects.get('parent-1', 'nope'), PlatformNotFoundError);
  assert.equal(stub.seen.at(-1)!.url, '/sub/v1alpha1/projects/parent-1/subprojects/nope');
});

test('basicAuth flag sends Basic keyId:keySecret and fetches no token', async (t) => {
  const stub = await startSubprojectsStub(t, { existing: [sp(1)] });
  const http = new PlatformHttp({ timeoutMs: 2000 });
  const client = new SubprojectsClient({
    http,
    baseUrl: `${stub.base}/sub`,
    credentials: { keyId: 'key-id', keySecret: 'key-secret' },
    basicAuth: true,
  });
  await client.listPage('parent-1');
  assert.deepEqual(
    stub.seen.map((r) => r.authorization),
    [`Basic ${Buffer.from('key-id:key-secret').toString('base64')}`],
  );
});

test('createPlatformClients shares one token source per key across client sets', async (t) => {
  const stub = await startSubprojectsStub(t);
  const registry = new OAuthTokenRegistry();
  const a = createPlatformClients(configFor(stub.base), { tokenRegistry: registry });
  const b = createPlatformClients(configFor(stub.base), { tokenRegistry: registry });
  assert.equal(a.tokens, b.tokens);
  await a.subprojects.listPage('parent-1');
  await b.subprojects.listPage('parent-1');
  assert.equal(stub.seen.filter((r) => r.url === '/auth/oauth2/token').length, 1);
});
