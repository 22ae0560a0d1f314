// Subproject provisioning on the real Temporal dev server against the sandbox, including outages,
// token expiry and a worker restart mid-process. The harness gives relayflow the sandbox's usable delay
// (RELAYFLOW_SUBPROJECT_USABLE_AFTER_MS = sandbox.subprojectReadyAfterMs).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { sleep } from '../../helpers/deadline.js';

interface SandboxRequest {
  method: string;
  path: string;
  status: number;
}

async function requests(h: Harness, method?: string): Promise<SandboxRequest[]> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/requests?area=subprojects${method ? `&method=${method}` : ''}`);
  return ((await res.json()) as { requests: SandboxRequest[] }).requests;
}

const creates = async (h: Harness) => (await requests(h, 'POST')).filter((r) => r.status === 200 && r.path.endsWith('/subprojects'));

async function start(h: Harness, displayName: string) {
  const res = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName } });
  assert.equal(res.statusCode, 202, res.body);
  return res.json<{ processId: string }>().processId;
}

/** Uses the subproject as the spec means it: a request for its project with the parent's key (the sandbox's sender ID configuration). */
async function useSubproject(h: Harness, subprojectId: string): Promise<number> {
  const { keyId, keySecret } = h.config.platform.credentials;
  const res = await fetch(`${h.sandbox.url}/senderid/v1/projects/${subprojectId}/callback-configuration`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}` },
    body: JSON.stringify({ hmacSecret: 'subproject-test' }),
  });
  return res.status;
}

type Details = { subprojectId: string; createTime: string; usableAt: string; usableFrom: string };

async function fault(h: Harness, body: Record<string, unknown>) {
  const res = await fetch(`${h.sandbox.url}/_sandbox/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.ok(res.ok, `fault accepted: ${await res.text()}`);
}

describe('subproject provisioning', () => {
  const h = useHarness({ sandbox: { subprojectReadyAfterMs: 1_500 } });

  test('creates once, waits until createTime + the usable delay, and is READY when the parent can use it', async () => {
    const before = Date.now();
    const id = await start(h, uniqueName('happy'));
    const waiting = await h.waitForState(id, 'WAITING_UNTIL_USABLE');
    const w = waiting.details as Details;
    assert.equal(w.usableFrom, 'createTime');
    assert.equal(Date.parse(w.usableAt), Date.parse(w.createTime) + 1_500, "usable 1.5 s (this sandbox's delay) after the platform's createTime");
    assert.match(
      String((waiting.history as { reason?: string }[]).at(-1)?.reason),
      new RegExp(`created on the platform; usable with its parent from ${w.usableAt}`),
    );
    // Still inside the delay (with a margin for a slow request): the parent's key is refused on the subproject.
    if (Date.now() < Date.parse(w.usableAt) - 300) assert.equal(await useSubproject(h, w.subprojectId), 403, 'not usable while waiting');

    const done = await h.waitForState(id, 'READY');
    assert.ok(Date.now() >= Date.parse(w.usableAt), 'not READY before usableAt');
    assert.ok(Date.now() - before >= 1_500, 'not before the readiness time');
    assert.equal(await useSubproject(h, w.subprojectId), 200, 'READY: the parent key can use the subproject');
    assert.deepEqual(
      (done.history as { state: string }[]).map((s) => s.state),
      ['CREATING', 'WAITING_UNTIL_USABLE', 'READY'],
    );
    const details = done.details as Details;
    assert.equal(details.subprojectId, w.subprojectId);
    assert.equal(
      (await requests(h, 'GET')).filter((r) => r.path.endsWith(`/subprojects/${w.subprojectId}`)).length,
      0,
      'no polling: the subproject is read nowhere after its create',
    );
    assert.equal((await creates(h)).filter((r) => r.path.includes('/subprojects')).length, 1);
    const result = await h.client.workflow.getHandle(id).result();
    assert.deepEqual(
      { subprojectId: result.subprojectId, usableAt: result.usableAt, usableFrom: result.usableFrom },
      { subprojectId: w.subprojectId, usableAt: w.usableAt, usableFrom: 'createTime' },
    );
  });

  test('a subproject that already exists (created long enough ago) is READY without waiting', async () => {
    const name = uniqueName('existing');
    const made = await fetch(`${h.sandbox.url}/subprojects/v1alpha1/projects/${h.config.platform.credentials.projectId}/subprojects`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${h.config.platform.credentials.keyId}:${h.config.platform.credentials.keySecret}`).toString('base64')}`,
      },
      body: JSON.stringify({ displayName: name }),
    });
    assert.equal(made.status, 200);
    const existing = (await made.json()) as { projectId: string; createTime: string };
    await new Promise((r) => setTimeout(r, 1_600));
    const startedAt = Date.now();
    const id = await start(h, name);
    const done = await h.waitForState(id, 'READY');
    const d = done.details as Details;
    assert.equal(d.subprojectId, existing.projectId, 'the existing one, not a new one');
    assert.equal(Date.parse(d.usableAt), Date.parse(existing.createTime) + 1_500);
    assert.ok(Date.parse(d.usableAt) < startedAt, 'its usable time had passed before the process started');
    assert.match(String((done.history as { reason?: string }[])[1]?.reason), /found an existing subproject with this name/);
  });

  test('a second start with the same name returns the same process and creates nothing', async () => {
    const name = uniqueName('twice');
    const id = await start(h, name);
    const again = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName: name } });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), { processId: id, kind: 'subproject', created: false, links: { self: `/v1/subprojects/${encodeURIComponent(id)}` } });
    await h.waitForState(id, 'READY');
    const third = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName: name } });
    assert.equal(third.statusCode, 200, 'still the same process after it completed');
    const named = (await requests(h, 'POST')).filter((r) => r.status === 200);
    const createdTwice = named.length - (await creates(h)).length;
    assert.equal(createdTwice, 0);
  });

  test('the platform answering 503 and then 429 for a while delays the process but does not fail it', async () => {
    await fault(h, { area: 'subprojects', method: 'POST', status: 503, count: 2 });
    await fault(h, { area: 'subprojects', method: 'GET', status: 429, count: 2, retryAfterSeconds: 1 });
    const createsBefore = (await creates(h)).length;
    const id = await start(h, uniqueName('outage'));
    const done = await h.waitForState(id, 'READY', 60_000);
    assert.equal(done.state, 'READY');
    const all = await requests(h);
    assert.ok(
      all.some((r) => r.status === 503),
      'the 503s were answered',
    );
    assert.ok(
      all.some((r) => r.status === 429),
      'the 429s were answered',
    );
    assert.equal((await creates(h)).length - createsBefore, 1, 'created exactly once');
  });

  test('a non-retryable platform error ends the process as FAILED with the reason', async () => {
    await fault(h, {
      area: 'subprojects',
      method: 'POST',
      status: 400,
      count: 1,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'displayName rejected by policy', details: [] } },
    });
    const id = await start(h, uniqueName('rejected'));
    await h.waitForState(id, 'FAILED');
    // The view reads the execution before it asks the process: on a loaded machine the state can say FAILED
    // while the execution read just before still said RUNNING. Read it again once the execution has ended.
    await assert.rejects(h.client.workflow.getHandle(id).result(), { name: 'WorkflowFailedError' });
    const failed = await h.waitForState(id, 'FAILED');
    const last = (failed.history as { state: string; reason?: string }[]).at(-1);
    assert.match(last?.reason ?? '', /displayName rejected by policy/);
    assert.equal((failed.execution as { status: string }).status, 'FAILED');
    assert.match(String(failed.failure), /rejected by policy/);
  });
});

describe('subproject provisioning across token expiry and a worker restart', () => {
  const h = useHarness({ sandbox: { subprojectReadyAfterMs: 4_000, tokenLifetimeSeconds: 1 } });

  test('an access token that expired between two calls is refreshed and the process completes', async () => {
    const tokenRequests = async () =>
      (await fetch(`${h.sandbox.url}/_sandbox/requests?area=auth`).then((r) => r.json() as Promise<{ requests: unknown[] }>)).requests.length;
    // A subproject's process makes one platform call (its usability is a timer since 277db1e), so the worker's token
    // is used once, left to expire (1 s), and the next process's call needs a new one.
    await h.waitForState(await start(h, uniqueName('token-first')), 'READY');
    const before = await tokenRequests();
    await sleep(1_500);
    await h.waitForState(await start(h, uniqueName('token-expiry')), 'READY');
    const after = await tokenRequests();
    assert.ok(after > before, `a new token was fetched after expiry (${before} token requests, then ${after})`);
    const rejected = (await requests(h)).filter((r) => r.status === 401);
    assert.ok(rejected.length <= 1, 'at most the one expired-token 401 per refresh race');
  });

  test('the worker stopped and started again mid-process: the process completes, the subproject is created once', async () => {
    const createsBefore = (await creates(h)).length;
    const id = await start(h, uniqueName('restart'));
    await h.waitForState(id, 'WAITING_UNTIL_USABLE');
    await h.stopWorker();
    const whileDown = await h.api({ method: 'GET', url: `/v1/subprojects/${encodeURIComponent(id)}` });
    assert.equal(whileDown.statusCode, 200, 'still answered with no worker running');
    assert.equal(whileDown.json().state, 'WAITING_UNTIL_USABLE');
    assert.equal(whileDown.json().statusSource, 'search-attributes');
    await new Promise((r) => setTimeout(r, 1_000));
    await h.startWorker();
    const done = await h.waitForState(id, 'READY');
    assert.ok(Date.now() >= Date.parse((done.details as Details).usableAt), 'the durable timer held across the restart');
    assert.equal(await useSubproject(h, (done.details as Details).subprojectId), 200);
    assert.equal((done.history as { state: string }[]).filter((s) => s.state === 'READY').length, 1);
    assert.equal((await creates(h)).length - createsBefore, 1);
  });
});
