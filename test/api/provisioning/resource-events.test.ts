// GET /v1/provisioning/resources/{channel}/{resourceType}/{resourceId}/events on the real Temporal dev server, store
// and sandbox: a template whose webhooks all went to its process (no inbox) is answered from the process's record,
// without the account's events it also took; a webhook that came before any process is shown as the inbox took it
// and as the process it was forwarded to recorded it; a link whose process no longer exists; 404 for a resource
// nobody knows; the response documented.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ulid } from 'ulid';
import { workflowIds } from '../../../processes/kinds.js';
import type { ResourceRef } from '../../../processes/provisioning/contract.js';
import { createPlatformClients } from '../../../platform/index.js';
import { ResourceLinkStore } from '../../../store/index.js';
import { uniqueName, useHarness, type Harness } from '../../helpers/harness.js';
import { commentEvent, deliverWebhook, reviewerEvent, setReviewer, start, templateBody, view, waitUntil } from '../../helpers/provisioning.js';

interface Answer {
  resource: ResourceRef;
  events: {
    eventId: string;
    trigger: string;
    sequence?: number;
    eventTime: string;
    inbox?: { receivedAt: string };
    handedTo: { processId: string; applied: boolean; hint?: boolean; note?: string }[];
  }[];
  processes: { processId: string; kind?: string; state?: string; executionStatus: string; linked: boolean; attachedToInbox: boolean }[];
  inbox?: { workflowId: string; received: number; duplicates: number; attached: { processId: string; linked?: boolean }[] };
}

const path = (r: ResourceRef) => `/v1/provisioning/resources/${r.channel}/${r.resourceType}/${encodeURIComponent(r.resourceId)}/events`;
const tname = (prefix: string) => uniqueName(prefix).replace(/-/g, '_');

async function eventsOf(h: Harness, r: ResourceRef): Promise<{ status: number; body: Answer }> {
  const res = await h.api({ method: 'GET', url: path(r) });
  return { status: res.statusCode, body: res.json() };
}

async function until(h: Harness, r: ResourceRef, ok: (a: Answer) => boolean, what: string): Promise<Answer> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { status, body } = await eventsOf(h, r);
    if (status === 200 && ok(body)) return body;
    if (Date.now() > deadline) throw new Error(`${what} not seen within 15 s; last: ${status} ${JSON.stringify(body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

describe('the events of a provisioning resource', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '3600000' } });

  test('webhooks that went straight to the process: listed from its record, each handed to it; no inbox; the account apart', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 200, comment: 'Fine by us' } });
    const id = await start(h, '/v1/templates/chata', templateBody(tname('direct')));
    const approved = await h.waitForState(id, 'APPROVED');
    const details = approved.details as { templateId: string; account: { id: string } };
    const template: ResourceRef = { channel: 'CHATA', resourceType: 'TEMPLATE', resourceId: details.templateId };
    // The process recorded every webhook it took; the platform's own list says which were sent for the template.
    const recorded = (await view(h, id)).details.events;
    assert.ok(recorded.length >= 1, 'the decision came by webhook');

    const { status, body } = await eventsOf(h, template);
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.resource, template);
    assert.equal(body.inbox, undefined, 'no inbox: every webhook went to the linked process');
    assert.deepEqual(
      body.processes.map((p) => [p.processId, p.kind, p.state, p.linked, p.attachedToInbox]),
      [[id, 'chata-template', 'APPROVED', true, false]],
    );
    assert.deepEqual(
      body.events.map((e) => e.eventId),
      recorded.map((e) => e.eventId),
      'each event the process recorded for its template, in order',
    );
    for (const e of body.events) {
      assert.equal(e.inbox, undefined);
      assert.deepEqual(
        e.handedTo.map((x) => x.processId),
        [id],
      );
    }
    assert.ok(body.events.some((e) => e.trigger === 'CHATA_TEMPLATE_APPROVED' && e.handedTo[0]!.applied));

    // An account event reaches the process too, but is the account's, not the template's.
    const account: ResourceRef = { channel: 'CHATA', resourceType: 'ACCOUNT', resourceId: details.account.id };
    const accountEvent = { ...commentEvent(account, 1), trigger: 'CHATA_ACCOUNT_COMMENT_ADDED' };
    assert.equal(await deliverWebhook(h, accountEvent as unknown as Record<string, unknown>), 200);
    await waitUntil(h, id, (v) => v.details.events.some((e) => e.eventId === accountEvent.eventId), 'the account event at the process');
    const ofAccount = await until(h, account, (a) => a.events.some((e) => e.eventId === accountEvent.eventId), 'the account event');
    assert.deepEqual(
      ofAccount.events.find((e) => e.eventId === accountEvent.eventId)!.handedTo.map((x) => x.processId),
      [id],
    );
    assert.ok(ofAccount.processes.some((p) => p.processId === id && p.linked));
    const again = await eventsOf(h, template);
    assert.ok(!again.body.events.some((e) => e.eventId === accountEvent.eventId), 'not among the template events');
    assert.equal(again.body.events.length, body.events.length);
    await h.api({ method: 'POST', url: `/v1/templates/${encodeURIComponent(id)}/stop`, payload: {} });
  });

  test('a webhook before any process: as the inbox took it, and as the process it was forwarded to recorded it', async () => {
    const clients = createPlatformClients(h.config.platform);
    const name = tname('early');
    const draft = await clients.provisioning.chataTemplates.create({
      name,
      language: 'en_US',
      category: 'UTILITY',
      status: 'DRAFT',
      components: [{ type: 'BODY', text: 'Early bird' }],
    });
    const template: ResourceRef = { channel: 'CHATA', resourceType: 'TEMPLATE', resourceId: draft.id };
    const early = (await reviewerEvent(h, {
      resourceType: 'TEMPLATE',
      resourceId: draft.id,
      trigger: 'CHATA_TEMPLATE_COMMENT_ADDED',
      comment: 'Seen before any process',
    })) as { eventId: string };
    const before = await until(h, template, (a) => a.events.some((e) => e.eventId === early.eventId), 'the early event in the inbox');
    assert.deepEqual(before.processes, [], 'no process yet');
    assert.ok(before.events[0]!.inbox?.receivedAt);
    assert.deepEqual(before.events[0]!.handedTo, []);
    assert.equal(before.inbox?.workflowId, workflowIds.resourceInbox('CHATA', 'TEMPLATE', draft.id));

    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 200 } });
    const id = await start(h, '/v1/templates/chata', templateBody(name, { category: 'UTILITY' }));
    await h.waitForState(id, 'APPROVED');
    const after = await until(
      h,
      template,
      (a) => a.events.find((e) => e.eventId === early.eventId)?.handedTo.length === 1 && a.events.some((e) => e.trigger === 'CHATA_TEMPLATE_APPROVED'),
      'the early event at the process',
    );
    const e = after.events.find((x) => x.eventId === early.eventId)!;
    assert.ok(e.inbox, 'taken by the inbox');
    assert.deepEqual(
      e.handedTo.map((x) => [x.processId, x.applied]),
      [[id, true]],
    );
    assert.deepEqual(
      after.processes.map((p) => [p.processId, p.linked, p.attachedToInbox]),
      [[id, true, true]],
    );
    assert.deepEqual(
      after.inbox?.attached.map((a) => [a.processId, a.linked]),
      [[id, true]],
    );
    const approvedEvent = after.events.find((x) => x.trigger === 'CHATA_TEMPLATE_APPROVED')!;
    assert.equal(approvedEvent.inbox, undefined, 'the decision went straight to the process');
    assert.deepEqual(
      approvedEvent.handedTo.map((x) => x.processId),
      [id],
    );
    assert.equal(after.events.length, new Set(after.events.map((x) => x.eventId)).size, 'each event once');
    await h.api({ method: 'POST', url: `/v1/templates/${encodeURIComponent(id)}/stop`, payload: {} });
  });

  test('a link whose process no longer exists is listed as such; a resource nobody knows is a 404', async () => {
    const r: ResourceRef = { channel: 'RCS', resourceType: 'SENDER', resourceId: ulid() };
    assert.equal((await eventsOf(h, r)).status, 404);
    const gone = `rcs-sender:sandbox-project:${ulid()}`;
    await assert.rejects(h.client.workflow.getHandle(gone).describe(), WorkflowNotFoundError);
    await new ResourceLinkStore(h.store.sql).link(workflowIds.resourceInbox(r.channel, r.resourceType, r.resourceId), gone);
    const { status, body } = await eventsOf(h, r);
    assert.equal(status, 200);
    assert.deepEqual(body, {
      resource: r,
      events: [],
      processes: [{ processId: gone, executionStatus: 'NOT_FOUND', linked: true, attachedToInbox: false }],
    });
  });

  test('the OpenAPI document describes the answer', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const op = doc.paths['/v1/provisioning/resources/{channel}/{resourceType}/{resourceId}/events'].get;
    const schema = op.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(schema.properties).sort(), ['events', 'inbox', 'processes', 'resource']);
    assert.deepEqual(schema.required.sort(), ['events', 'processes', 'resource']);
    assert.ok(schema.properties.events.items.properties.handedTo, 'each event says whom it was handed to');
    assert.ok(op.responses['404']);
  });
});
