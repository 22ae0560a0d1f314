// Where a provisioning webhook goes, on the real Temporal dev server and store: one signal to the process linked to
// its resource; the resource's inbox only while no running process has claimed it, handing what it kept to the
// process that links later, then ending. Both orders of "the process links" and "the webhook arrives", the two
// interleavings in between (forced through the store's reads), a repeated delivery, a process that has ended, and a
// store that does not answer (503). Then every provisioning process kind, linked, dropping a repeated eventId the
// intake let through.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ulid } from 'ulid';
import { createResourceLinkActivities } from '../../../processes/provisioning/activities/resource-link.js';
import { buildApp } from '../../../api/app.js';
import { deliverProvisioningEvent } from '../../../api/callbacks/provisioning-delivery.js';
import { AesGcmPayloadCodec } from '../../../common/codec.js';
import { createLogger } from '../../../common/logger.js';
import { PROVISIONING_WEBHOOK_PATH } from '../../../contracts/callbacks.js';
import { workflowIds } from '../../../processes/kinds.js';
import { inboxQuery, provisioningEventSignal, type ProvisioningEvent, type ResourceRef } from '../../../processes/provisioning/contract.js';
import { openCampaignStore, ResourceLinkStore, type ResourceLink } from '../../../store/index.js';
import type { Sql } from '../../../store/sql.js';
import { useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { commentEvent, freshMobile, rcsBody, setReviewer, signedDelivery, start, templateBody, view, waitUntil } from '../../helpers/provisioning.js';
import { freshStoreSnapshot } from '../../helpers/store-snapshot.js';

const silent = createLogger({ name: 'test', level: 'silent' });
const newResource = (): ResourceRef => ({ channel: 'RCS', resourceType: 'SENDER', resourceId: ulid() });
const inboxIdOf = (r: ResourceRef) => workflowIds.resourceInbox(r.channel, r.resourceType, r.resourceId);

/** The store with a hook around each read of the links: where a test puts the other side of an interleaving. */
class HookedLinks extends ResourceLinkStore {
  private reads = 0;
  constructor(
    sql: Sql,
    private readonly hook: (read: number, when: 'before' | 'after') => Promise<void>,
  ) {
    super(sql);
  }
  override async owners(resource: string): Promise<ResourceLink[]> {
    const n = ++this.reads;
    await this.hook(n, 'before');
    const found = await super.owners(resource);
    await this.hook(n, 'after');
    return found;
  }
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeoutMs} ms; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('provisioning webhook routing', () => {
  const h = useHarness();
  const links = () => new ResourceLinkStore(h.store.sql);
  const post = (body: unknown) =>
    h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...signedDelivery(h.config.api.provisioningWebhookSecret!, body) });
  const deliver = (e: ProvisioningEvent, store: ResourceLinkStore = links()) =>
    deliverProvisioningEvent({ client: h.client, taskQueue: h.config.taskQueue, links: store, log: silent }, e);
  /** What the process's link activity does (processes/provisioning/activities/resource-link.ts), called as the worker would. */
  const link = (r: ResourceRef, processId: string) =>
    createResourceLinkActivities({ temporal: h.client, links: links() }).linkResource({ resource: r, processId });

  /**
   * A running workflow that takes provisioning events and drops a repeated eventId as the processes do (checked for
   * each kind below): an inbox of a resource of its own, kept an hour; its query counts what it got.
   */
  async function standIn(): Promise<string> {
    const own = newResource();
    await h.client.workflow.start('resourceInbox', { workflowId: inboxIdOf(own), taskQueue: h.config.taskQueue, args: [{ resource: own, idleMs: 3_600_000 }] });
    return inboxIdOf(own);
  }
  const got = (processId: string) => h.client.workflow.getHandle(processId).query(inboxQuery);
  const status = async (workflowId: string) => {
    try {
      return (await h.client.workflow.getHandle(workflowId).describe()).status.name;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return 'NONE';
      throw err;
    }
  };
  const inboxEnded = (r: ResourceRef) =>
    until(
      () => status(inboxIdOf(r)),
      (s) => s === 'COMPLETED',
      `the inbox of ${r.resourceId} ended`,
    );

  test('link first: the webhook is one signal to the linked process, and no inbox is started', async () => {
    const p = await standIn();
    const r = newResource();
    assert.deepEqual(await link(r, p), { linked: true, inbox: 'none' });
    const e = commentEvent(r, 1);
    assert.equal((await post(e)).statusCode, 200);
    const v = await until(
      () => got(p),
      (x) => x.received === 1,
      'the event at the process',
    );
    assert.deepEqual(
      v.events.map((x) => x.eventId),
      [e.eventId],
    );
    assert.equal(await status(inboxIdOf(r)), 'NONE', 'no inbox');
    const signals = (await h.client.workflow.getHandle(p).fetchHistory()).events!.filter((x) => x.workflowExecutionSignaledEventAttributes);
    assert.equal(signals.length, 1, 'one signal for the webhook');
  });

  test('webhook first: the inbox keeps it, hands it to the process that links, and ends; the next webhook goes straight to the process', async () => {
    const r = newResource();
    const early = commentEvent(r, 1);
    assert.equal((await post(early)).statusCode, 200);
    await until(
      () => got(inboxIdOf(r)),
      (x) => x.received === 1,
      'the early event in the inbox',
    );
    const p = await standIn();
    assert.deepEqual(await link(r, p), { linked: true, inbox: 'attached' });
    await until(
      () => got(p),
      (x) => x.received === 1,
      'the early event forwarded',
    );
    await inboxEnded(r);
    const runId = (await h.client.workflow.getHandle(inboxIdOf(r)).describe()).runId;
    const later = commentEvent(r, 2);
    assert.deepEqual(await deliver(later), { processes: [p], inbox: false });
    const v = await until(
      () => got(p),
      (x) => x.received === 2,
      'the later event at the process',
    );
    assert.deepEqual(
      v.events.map((x) => x.eventId),
      [early.eventId, later.eventId],
    );
    assert.equal((await h.client.workflow.getHandle(inboxIdOf(r)).describe()).runId, runId, 'no new inbox');
  });

  test('the look-up finds no link, the process links and finds no inbox, then the inbox takes the event: the second read hands it over', async () => {
    const p = await standIn();
    const r = newResource();
    const store = new HookedLinks(h.store.sql, async (n, when) => {
      if (n === 1 && when === 'after') assert.deepEqual(await link(r, p), { linked: true, inbox: 'none' }, 'no inbox yet');
    });
    const e = commentEvent(r, 1);
    assert.deepEqual(await deliver(e, store), { processes: [p], inbox: true });
    const v = await until(
      () => got(p),
      (x) => x.received === 1,
      'the event at the process',
    );
    assert.equal(v.duplicates, 0);
    // The inbox holds it too, with no process attached: nothing forwards it twice.
    assert.deepEqual((await got(inboxIdOf(r))).attached, []);
  });

  test('the inbox takes the event, the process links and has it forwarded, then the second read signals it too: the process drops the repeat', async () => {
    const p = await standIn();
    const r = newResource();
    const store = new HookedLinks(h.store.sql, async (n, when) => {
      if (n === 2 && when === 'before') assert.deepEqual(await link(r, p), { linked: true, inbox: 'attached' });
    });
    const e = commentEvent(r, 1);
    assert.deepEqual(await deliver(e, store), { processes: [p], inbox: true });
    const v = await until(
      () => got(p),
      (x) => x.received === 1 && x.duplicates === 1,
      'the event once, its repeat dropped',
    );
    assert.deepEqual(
      v.events.map((x) => x.eventId),
      [e.eventId],
    );
    await inboxEnded(r);
  });

  test('a repeated delivery (new nonce, same eventId) is dropped by the intake: the linked process gets it once', async () => {
    const p = await standIn();
    const r = newResource();
    await link(r, p);
    const e = commentEvent(r, 1);
    assert.equal((await post(e)).statusCode, 200);
    const repeat = await post(e);
    assert.equal(repeat.statusCode, 200);
    assert.deepEqual(repeat.json(), { duplicate: true });
    const v = await until(
      () => got(p),
      (x) => x.received === 1,
      'the event',
    );
    assert.equal(v.duplicates, 0, 'the repeat never reached it');
    assert.equal(await status(inboxIdOf(r)), 'NONE');
  });

  test('the linked process has ended: the event goes to the inbox and the stale link is dropped; a process linking later gets it', async () => {
    const ended = await standIn();
    const r = newResource();
    await link(r, ended);
    await h.client.workflow.getHandle(ended).terminate('the process ended');
    const e = commentEvent(r, 1);
    assert.deepEqual(await deliver(e), { processes: [], inbox: true });
    assert.deepEqual(await links().owners(inboxIdOf(r)), [], 'unlinked');
    const p = await standIn();
    assert.deepEqual(await link(r, p), { linked: true, inbox: 'attached' });
    await until(
      () => got(p),
      (x) => x.received === 1,
      'the event forwarded to the new process',
    );
    await inboxEnded(r);
  });

  test('an event for a resource no process claimed is kept by its inbox; a redelivery is dropped as a duplicate', async () => {
    const id = ulid();
    const body = { trigger: 'CHATA_WABA_ACCOUNT_CHANGED', sender: { id, state: 'ACTIVE', updateTime: '2026-01-01T00:00:00Z' } };
    assert.equal((await post(body)).statusCode, 200);
    assert.deepEqual((await post(body)).json(), { duplicate: true }, 'a redelivery (new nonce) is acknowledged as a repeat');
    assert.equal((await post({ ...body, sender: { ...body.sender, state: 'ERROR' } })).statusCode, 200);
    const box = await until(
      () => got(workflowIds.resourceInbox('CHATA', 'SENDER', id)),
      (b) => b.received === 2,
      'two events in the inbox',
    );
    assert.equal(box.duplicates, 0, 'the repeat never reached it');
    assert.ok(box.events.every((e) => e.eventId.startsWith('sha256:') && e.sequence === undefined));
  });

  test('an event that is not ours is acknowledged with why and routed nowhere; a non-object body is a 400', async () => {
    const id = ulid();
    const res = await post({ trigger: 'BATCH_STATUS_UPDATE', resourceId: id });
    assert.equal(res.statusCode, 200);
    assert.match(res.json().ignored, /names no provisioning resource/);
    for (const type of ['TEMPLATE', 'SENDER'] as const) assert.equal(await status(workflowIds.resourceInbox('CHATA', type, id)), 'NONE', 'no inbox');
    const bad = await post('just text');
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(
      bad.json().error.details.map((d: { field: string }) => d.field),
      ['body'],
    );
  });

  test('with the store unreachable the intake answers 503 (the platform retries), and the same delivery is accepted later', async () => {
    const broken = await openCampaignStore({ dataDir: '', inMemory: true, embeddedFrom: await freshStoreSnapshot() });
    await broken.sql.close();
    const app = await buildApp({ config: h.config, client: h.client, codec: new AesGcmPayloadCodec(h.config.codecKeys), logger: silent, store: broken });
    try {
      const delivery = signedDelivery(h.config.api.provisioningWebhookSecret!, commentEvent(newResource(), 1));
      const res = await app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...delivery });
      assert.equal(res.statusCode, 503, res.body);
      assert.ok(res.headers['retry-after']);
      const again = await app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...delivery });
      assert.equal(again.statusCode, 503, 'not dropped as a repeat: nothing was claimed');
      assert.equal((await h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...delivery })).statusCode, 200);
    } finally {
      await app.close();
    }
  });
});

describe('every provisioning process kind, linked to its resource, takes a webhook once', () => {
  // Reviewers and bundles that never decide within the test: every process waits on its webhooks.
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '3600000' } }, async (h) => {
    const never = 3_600_000;
    await setReviewer(h, {
      templates: { outcome: 'approve', delayMs: never },
      rcs: { outcome: 'launch', delayMs: never },
      chataSenders: { outcome: 'activate', delayMs: never },
      chatbSenders: { outcome: 'activate', delayMs: never },
    });
    const res = await fetch(`${h.sandbox.url}/_sandbox/provisioning/bundles`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ delayMs: never }),
    });
    assert.equal(res.status, 200, await res.text());
  });
  const tname = () => uniqueName('linked').replace(/-/g, '_');
  const KINDS: {
    route: string;
    body: () => Record<string, unknown>;
    channel: ResourceRef['channel'];
    resourceType: ResourceRef['resourceType'];
    idField: string;
  }[] = [
    { route: '/v1/templates/chata', body: () => templateBody(tname()), channel: 'CHATA', resourceType: 'TEMPLATE', idField: 'templateId' },
    {
      route: '/v1/templates/chatb',
      body: () => templateBody(tname(), { category: 'UTILITY' }),
      channel: 'CHATB',
      resourceType: 'TEMPLATE',
      idField: 'templateId',
    },
    { route: '/v1/senders/rcs', body: () => rcsBody(uniqueName('Linked')), channel: 'RCS', resourceType: 'SENDER', idField: 'senderId' },
    {
      route: '/v1/senders/chata',
      body: () => ({ phoneNumber: freshMobile(), displayName: uniqueName('Linked') }),
      channel: 'CHATA',
      resourceType: 'SENDER',
      idField: 'senderId',
    },
    {
      route: '/v1/senders/chatb',
      body: () => ({ displayName: uniqueName('Linked'), categoryCode: 'RETAIL' }),
      channel: 'CHATB',
      resourceType: 'SENDER',
      idField: 'senderId',
    },
    {
      route: '/v1/bundles',
      body: () => ({ key: uniqueName('linked'), displayName: 'Acme', region: 'EU' }),
      channel: 'PROJECT',
      resourceType: 'BUNDLE',
      idField: 'bundleId',
    },
  ];

  const status = async (workflowId: string) =>
    h.client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        (d) => d.status.name,
        (err: unknown) => {
          if (err instanceof WorkflowNotFoundError) return 'NONE';
          throw err;
        },
      );

  async function linkedProcess(h: Harness, k: (typeof KINDS)[number]): Promise<{ id: string; resource: ResourceRef }> {
    const id = await start(h, k.route, k.body());
    const v = await waitUntil(h, id, (x) => typeof x.details[k.idField] === 'string', k.idField);
    const resource: ResourceRef = { channel: k.channel, resourceType: k.resourceType, resourceId: v.details[k.idField] as string };
    // The create activity linked the process before it returned, so before the process recorded the resource's ID.
    const owners = await new ResourceLinkStore(h.store.sql).owners(inboxIdOf(resource));
    assert.ok(
      owners.some((l) => l.processId === id),
      `${id} linked by its create`,
    );
    return { id, resource };
  }

  test('each kind: the same event twice is recorded once (a repeated delivery dropped by the intake, a repeated signal by the process); no inbox left running', async () => {
    const started = await Promise.all(KINDS.map((k) => linkedProcess(h, k)));
    for (const { id, resource } of started) {
      const e: ProvisioningEvent = { ...commentEvent(resource, 1_000), trigger: `${resource.channel}_${resource.resourceType}_COMMENT_ADDED` };
      const before = (await view(h, id)).details.duplicateEvents;
      const deliver = () => h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...signedDelivery(h.config.api.provisioningWebhookSecret!, e) });
      assert.equal((await deliver()).statusCode, 200);
      assert.deepEqual((await deliver()).json(), { duplicate: true }, `${id}: the intake drops a repeated delivery`);
      // A repeat may still reach the process (its inbox forwarding what it kept, the intake's second read of the links:
      // api/callbacks/provisioning-delivery.ts): it drops it.
      await h.client.workflow.getHandle(id).signal(provisioningEventSignal, e);
      const v = await waitUntil(h, id, (x) => x.details.duplicateEvents === before + 1, `${id}: the repeat dropped`);
      assert.equal(v.details.events.filter((x) => x.eventId === e.eventId).length, 1, `${id}: recorded once`);
      // An event the platform sent at the create, before the link, started an inbox: it handed over and ended.
      await until(
        () => status(inboxIdOf(resource)),
        (st) => st === 'NONE' || st === 'COMPLETED',
        `${id}: no inbox left running`,
        // The hand-over is a few workflow tasks on two processes: 15 s was not enough once on a loaded CI machine.
        45_000,
      );
    }
    // The CHATA processes follow the business account too: one account event reaches both, once each.
    const chata = started.filter((s) => s.resource.channel === 'CHATA');
    const accountId = (await view(h, chata[0]!.id)).details.account as { id: string };
    const account: ResourceRef = { channel: 'CHATA', resourceType: 'ACCOUNT', resourceId: accountId.id };
    const owners = (await new ResourceLinkStore(h.store.sql).owners(inboxIdOf(account))).map((o) => o.processId);
    for (const { id } of chata) assert.ok(owners.includes(id), `${id} linked to the account`);
    const e: ProvisioningEvent = { ...commentEvent(account, 1_000), trigger: 'CHATA_ACCOUNT_COMMENT_ADDED' };
    assert.equal(
      (await h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...signedDelivery(h.config.api.provisioningWebhookSecret!, e) })).statusCode,
      200,
    );
    for (const { id } of chata) await waitUntil(h, id, (x) => x.details.events.some((y) => y.eventId === e.eventId), `${id}: the account event`);
    await Promise.all(started.map(({ id }) => h.client.workflow.getHandle(id).terminate('test done')));
  });
});
