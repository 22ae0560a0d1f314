// A customer's events stay its own, end to end on the real Temporal dev server, the sandbox and the store: processes
// started by two tenant keys each send their events (carrying `tenant`) to that customer's subscription only, signed
// per Standard Webhooks (checked with its reference library); a subscription of every customer gets both; a tenant
// key lists, reads and acts on its own subscriptions only, another's answering as an unknown ID.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { eventually, startEventReceiver, type EventReceiver, type ReceivedEvent } from '../../helpers/event-receiver.js';
import { freshNumber, messageFor, type Started } from '../../helpers/verification.js';

interface Delivered {
  type: string;
  data: { eventId: string; processId: string; state: string; tenant?: string };
}
interface Subscription {
  id: string;
  secret: string;
  tenant?: string;
}

const KEY_A = `tenant-a-key-${'a'.repeat(24)}`;
const KEY_B = `tenant-b-key-${'b'.repeat(24)}`;
const TENANT_A = uniqueName('acme');
const TENANT_B = uniqueName('globex');
const keysDir = mkdtempSync(join(tmpdir(), 'relayflow-tenant-events-'));
const keysFile = join(keysDir, 'api-keys');
writeFileSync(keysFile, `${KEY_A} admin tenant=${TENANT_A}\n${KEY_B} admin tenant=${TENANT_B}\n`);

describe("a customer's events", () => {
  const h = useHarness({ env: { RELAYFLOW_API_KEYS_FILE: keysFile } });
  const as = (key: string, o: InjectOptions) => h.app.inject({ ...o, headers: { authorization: `Bearer ${key}`, ...o.headers } });
  const receivers: Record<'a' | 'b' | 'all', EventReceiver> = {} as never;
  const subs: Record<'a' | 'b' | 'all', Subscription> = {} as never;
  const processes: Record<'a' | 'b' | 'none', string> = {} as never;

  const subscribe = async (key: string | undefined, body: Record<string, unknown>): Promise<Subscription> => {
    const o: InjectOptions = { method: 'POST', url: '/v1/event-subscriptions', payload: body };
    const res = key ? await as(key, o) : await h.api(o);
    assert.equal(res.statusCode, 201, res.body);
    return res.json<Subscription>();
  };
  /** A verification started and completed by `key` (undefined: the harness's key of every customer). */
  const verify = async (key: string | undefined): Promise<string> => {
    const identity = freshNumber();
    const call = (o: InjectOptions) => (key ? as(key, o) : h.api(o));
    const started = await call({ method: 'POST', url: '/v1/verifications', payload: { identity, method: 'sms' } });
    assert.equal(started.statusCode, 201, started.body);
    const s = started.json<Started>();
    const sms = await messageFor(h, identity, s.current!.verificationId);
    const reported = await call({ method: 'POST', url: `/v1/verifications/${encodeURIComponent(s.processId)}/report`, payload: { code: sms.code! } });
    assert.equal(reported.statusCode, 200, reported.body);
    await h.waitForState(s.processId, 'SUCCESSFUL');
    return s.processId;
  };
  const verified = (secret: string, e: ReceivedEvent) => new Webhook(secret).verify(e.body, e.headers as Record<string, string>) as Delivered;
  const successOf = (r: EventReceiver, secret: string, processId: string) =>
    r.accepted.map((e) => verified(secret, e)).find((d) => d.data.processId === processId && d.data.state === 'SUCCESSFUL');

  before(async () => {
    for (const name of ['a', 'b', 'all'] as const) receivers[name] = await startEventReceiver();
    // A tenant key's subscription is its customer's; a key of every customer makes one for a customer, or for all.
    subs.a = await subscribe(KEY_A, { url: receivers.a.url, kinds: ['verification'] });
    subs.b = await subscribe(undefined, { url: receivers.b.url, kinds: ['verification'], tenant: TENANT_B });
    subs.all = await subscribe(undefined, { url: receivers.all.url, kinds: ['verification'] });
    [processes.a, processes.b, processes.none] = await Promise.all([verify(KEY_A), verify(KEY_B), verify(undefined)]);
  });
  after(async () => {
    for (const r of Object.values(receivers)) await r?.close();
    rmSync(keysDir, { recursive: true, force: true });
  });

  test("each customer's subscription gets its own customer's events only, with the tenant in the body", async () => {
    assert.equal(subs.a.tenant, TENANT_A, "a tenant key's subscription is its customer's");
    assert.equal(subs.b.tenant, TENANT_B);
    assert.equal(subs.all.tenant, undefined);
    for (const p of Object.values(processes)) await eventually(`${p} at the subscription of all`, () => successOf(receivers.all, subs.all.secret, p));
    await eventually("A's last event", () => successOf(receivers.a, subs.a.secret, processes.a));
    await eventually("B's last event", () => successOf(receivers.b, subs.b.secret, processes.b));

    for (const [name, tenant] of [
      ['a', TENANT_A],
      ['b', TENANT_B],
    ] as const) {
      const got = receivers[name].all.map((e) => verified(subs[name].secret, e));
      assert.ok(got.length >= 2, `${name}: a start and a change at least`);
      assert.deepEqual(new Set(got.map((d) => d.data.processId)), new Set([processes[name]]), `${name}: its own customer's process only`);
      assert.ok(
        got.every((d) => d.data.tenant === tenant),
        `${name}: every event says ${tenant}`,
      );
    }
    const all = receivers.all.accepted.map((e) => verified(subs.all.secret, e));
    const tenantsOf = (p: string) => new Set(all.filter((d) => d.data.processId === p).map((d) => d.data.tenant));
    assert.deepEqual(tenantsOf(processes.a), new Set([TENANT_A]));
    assert.deepEqual(tenantsOf(processes.b), new Set([TENANT_B]));
    assert.deepEqual(tenantsOf(processes.none), new Set([undefined]), 'a process of no customer: no tenant');
    assert.ok(
      receivers.all.accepted.filter((e) => e.body.includes(processes.none)).every((e) => !e.body.includes('"tenant"')),
      'no tenant field when there is none',
    );
  });

  test("a tenant key lists, reads and acts on its own subscriptions only; another's is a 404 as an unknown one", async () => {
    const list = async (key: string | undefined) => {
      const o: InjectOptions = { method: 'GET', url: '/v1/event-subscriptions' };
      const res = key ? await as(key, o) : await h.api(o);
      assert.equal(res.statusCode, 200, res.body);
      return res
        .json<{ subscriptions: Subscription[] }>()
        .subscriptions.map((s) => s.id)
        .sort();
    };
    assert.deepEqual(await list(KEY_A), [subs.a.id]);
    assert.deepEqual(await list(KEY_B), [subs.b.id]);
    assert.deepEqual(await list(undefined), [subs.a.id, subs.b.id, subs.all.id].sort(), 'a key of every customer sees all');

    const unknown = 'sub_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const operations = (id: string): InjectOptions[] => [
      { method: 'GET', url: `/v1/event-subscriptions/${id}` },
      { method: 'GET', url: `/v1/event-subscriptions/${id}/attempts` },
      { method: 'POST', url: `/v1/event-subscriptions/${id}/rotate-secret`, payload: {} },
      { method: 'POST', url: `/v1/event-subscriptions/${id}/replay`, payload: { since: '2000-01-01T00:00:00Z' } },
      { method: 'POST', url: `/v1/event-subscriptions/${id}/enable` },
      { method: 'DELETE', url: `/v1/event-subscriptions/${id}` },
    ];
    for (const id of [subs.b.id, subs.all.id]) {
      const [theirs, none] = [operations(id), operations(unknown)];
      for (const [i, o] of theirs.entries()) {
        const res = await as(KEY_A, o);
        const missing = await as(KEY_A, none[i]!);
        assert.equal(res.statusCode, 404, `${o.method} ${o.url}: ${res.body}`);
        assert.equal(res.json().error.code, missing.json().error.code, 'as for one that does not exist');
        assert.equal(res.json().error.message, missing.json().error.message.replace(unknown, id));
      }
    }
    assert.deepEqual(await list(undefined), [subs.a.id, subs.b.id, subs.all.id].sort(), "nothing of another's was changed");
    const b = (await h.api({ method: 'GET', url: `/v1/event-subscriptions/${subs.b.id}` })).json<{ status: string; pending: number }>();
    assert.equal(b.status, 'active');

    // Its own: read, and a replay queues its customer's events only (the subscription of all queues every one).
    const own = await as(KEY_A, { method: 'GET', url: `/v1/event-subscriptions/${subs.a.id}` });
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json<{ tenant: string }>().tenant, TENANT_A);
    const since = { since: '2000-01-01T00:00:00Z' };
    const replayed = await as(KEY_A, { method: 'POST', url: `/v1/event-subscriptions/${subs.a.id}/replay`, payload: since });
    assert.equal(replayed.statusCode, 202, replayed.body);
    const ownEvents = new Set(receivers.a.accepted.map((e) => verified(subs.a.secret, e).data.eventId));
    assert.equal(replayed.json<{ queued: number }>().queued, ownEvents.size, "A's events, each once");
    const replayedAll = await h.api({ method: 'POST', url: `/v1/event-subscriptions/${subs.all.id}/replay`, payload: since });
    assert.ok(replayedAll.json<{ queued: number }>().queued > ownEvents.size, 'every customer');
  });

  test("a subscription's tenant is checked: its pattern, and a tenant key's own customer only", async () => {
    const before = (await h.api({ method: 'GET', url: '/v1/event-subscriptions' })).json<{ subscriptions: unknown[] }>().subscriptions.length;
    const bad = await h.api({ method: 'POST', url: '/v1/event-subscriptions', payload: { url: receivers.all.url, tenant: 'no spaces!' } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.ok(
      bad.json().error.details.some((d: { field: string }) => d.field === 'body.tenant'),
      bad.body,
    );
    const other = await as(KEY_A, { method: 'POST', url: '/v1/event-subscriptions', payload: { url: receivers.a.url, tenant: TENANT_B } });
    assert.equal(other.statusCode, 422, other.body);
    assert.deepEqual(
      other.json().error.details.map((d: { field: string; rule: string }) => [d.field, d.rule]),
      [['body.tenant', 'own-tenant']],
    );
    const after = (await h.api({ method: 'GET', url: '/v1/event-subscriptions' })).json<{ subscriptions: unknown[] }>().subscriptions.length;
    assert.equal(after, before, 'nothing was made');
  });
});
