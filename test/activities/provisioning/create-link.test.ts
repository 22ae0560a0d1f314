// The create activities link the process running them to the resource the platform answered with, before they
// return, on the real Temporal dev server and store: every kind against the sandbox (a create that finds its resource
// links again), and against an in-memory platform a create whose answer was lost while the resource's first webhook
// went to an inbox: the retry finds the resource, links, and the inbox hands the event over and ends. Without a
// Temporal client the create refuses before it makes anything; outside a workflow's activity it links nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ulid } from 'ulid';
import { createProvisioningActivities } from '../../../processes/provisioning/activities/index.js';
import { deliverProvisioningEvent } from '../../../api/callbacks/provisioning-delivery.js';
import { createLogger } from '../../../common/logger.js';
import { workflowIds } from '../../../processes/kinds.js';
import {
  BUNDLE_KEY_LABEL,
  BUNDLE_RUN_LABEL,
  inboxQuery,
  type CreateTemplateInput,
  type ProvisioningEvent,
  type ResourceRef,
} from '../../../processes/provisioning/contract.js';
import { createPlatformClients } from '../../../platform/index.js';
import { ResourceLinkStore } from '../../../store/index.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { commentEvent, freshMobile, rcsSenderFields, templateBody } from '../../helpers/provisioning.js';
import { failure, startStub } from '../../helpers/provisioning-stub.js';

const silent = createLogger({ name: 'test', level: 'silent' });
const inboxIdOf = (r: ResourceRef) => workflowIds.resourceInbox(r.channel, r.resourceType, r.resourceId);

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${timeoutMs} ms; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('create activities link their process to what they create', () => {
  const h = useHarness();
  const links = () => new ResourceLinkStore(h.store.sql);
  /** The activity as a workflow's: its context names the process (a stand-in that takes provisioning events). */
  const asProcess = <R>(processId: string, activity: () => Promise<R>) =>
    new MockActivityEnvironment({ workflowExecution: { workflowId: processId, runId: ulid() }, taskQueue: h.config.taskQueue }).run(activity) as Promise<R>;
  /** A running workflow that takes provisioning events and drops a repeated eventId: an inbox of a resource of its own. */
  async function standIn(): Promise<string> {
    const own: ResourceRef = { channel: 'RCS', resourceType: 'SENDER', resourceId: ulid() };
    await h.client.workflow.start('resourceInbox', { workflowId: inboxIdOf(own), taskQueue: h.config.taskQueue, args: [{ resource: own, idleMs: 3_600_000 }] });
    return inboxIdOf(own);
  }
  const got = (workflowId: string) => h.client.workflow.getHandle(workflowId).query(inboxQuery);
  const owners = async (r: ResourceRef) => (await links().owners(inboxIdOf(r))).map((l) => l.processId);

  test('each create links the process before it returns; creating again finds the resource and renews the link', async () => {
    const a = createProvisioningActivities({ provisioning: createPlatformClients(h.config.platform).provisioning, temporal: h.client, links: links() });
    const template = (more: Record<string, unknown> = {}) =>
      ({ ...templateBody(uniqueName('linked').replace(/-/g, '_'), more), status: 'SUBMIT' }) as CreateTemplateInput['template'];
    const [chataTemplate, chatbTemplate] = [template(), template({ category: 'UTILITY' })];
    const rcs = rcsSenderFields(uniqueName('Linked'));
    const chata = { phoneNumber: freshMobile(), displayName: uniqueName('Linked') };
    const chatb = { displayName: uniqueName('Linked'), categoryCode: 'RETAIL' };
    const bundle = {
      name: 'Acme',
      region: 'EU' as const,
      smsApp: { name: 'Acme SMS' },
      labels: { [BUNDLE_KEY_LABEL]: uniqueName('linked'), [BUNDLE_RUN_LABEL]: ulid() },
    };
    // Each input is fixed, so the second call of a create is what a retried attempt does: it finds the first's resource.
    const creates: [ResourceRef['channel'], ResourceRef['resourceType'], () => Promise<{ id: string; created: boolean }>][] = [
      ['CHATA', 'TEMPLATE', () => a.createTemplate({ channel: 'CHATA', template: chataTemplate })],
      ['CHATB', 'TEMPLATE', () => a.createTemplate({ channel: 'CHATB', template: chatbTemplate })],
      ['RCS', 'SENDER', () => a.createRcsSender(rcs)],
      ['CHATA', 'SENDER', () => a.createChataSender(chata)],
      ['CHATB', 'SENDER', () => a.createChatbSender(chatb)],
      ['PROJECT', 'BUNDLE', () => a.createBundle({ bundle })],
    ];
    for (const [channel, resourceType, create] of creates) {
      const kind = `${channel} ${resourceType}`;
      const p = await standIn();
      const made = await asProcess(p, create);
      assert.equal(made.created, true, `${kind} created`);
      const r: ResourceRef = { channel, resourceType, resourceId: made.id };
      assert.deepEqual(await owners(r), [p], `${kind}: linked when the create returned`);
      const [first] = await links().owners(inboxIdOf(r));
      const again = await asProcess(p, create);
      assert.deepEqual([again.created, again.id], [false, made.id], `${kind}: found the second time`);
      const [renewed] = await links().owners(inboxIdOf(r));
      assert.equal(renewed!.processId, p);
      assert.ok(renewed!.generation > first!.generation, `${kind}: linking again renews the link`);
      await h.client.workflow.getHandle(p).terminate('test done');
    }
  });

  test('a create whose answer was lost: the webhook went to an inbox; the retry finds the sender, links, and the inbox hands over', async (t) => {
    const stub = await startStub(t, { loseAnswer: ['POST chatb/senders'] });
    const a = createProvisioningActivities({ provisioning: stub.clients.provisioning, temporal: h.client, links: links() });
    const deliver = (e: ProvisioningEvent) => deliverProvisioningEvent({ client: h.client, taskQueue: h.config.taskQueue, links: links(), log: silent }, e);
    const p = await standIn();
    const input = { displayName: uniqueName('Lost'), categoryCode: 'RETAIL' };
    await failure(
      asProcess(p, () => a.createChatbSender(input)),
      'PlatformUnavailableError',
      false,
    );
    const r: ResourceRef = { channel: 'CHATB', resourceType: 'SENDER', resourceId: stub.store.chatb[0]!.id as string };
    assert.ok(!(await owners(r)).includes(p), 'the attempt ended before the link');
    const early: ProvisioningEvent = { ...commentEvent(r, 1), trigger: 'CHATB_SENDER_COMMENT_ADDED' };
    assert.deepEqual(await deliver(early), { processes: [], inbox: true });

    const retried = await asProcess(p, () => a.createChatbSender(input));
    assert.equal(retried.created, false, 'the retry found the sender');
    assert.equal(retried.id, r.resourceId);
    assert.deepEqual(await owners(r), [p]);
    await until(
      () => got(p),
      (x) => x.events.some((e) => e.eventId === early.eventId),
      'the early event forwarded to the process',
    );
    await until(
      () =>
        h.client.workflow
          .getHandle(inboxIdOf(r))
          .describe()
          .then((d) => d.status.name),
      (s) => s === 'COMPLETED',
      'the inbox handed over and ended',
    );
    const later: ProvisioningEvent = { ...commentEvent(r, 2), trigger: 'CHATB_SENDER_COMMENT_ADDED' };
    assert.deepEqual(await deliver(later), { processes: [p], inbox: false });
    assert.deepEqual(
      stub.writes().filter((w) => w === 'POST chatb/senders'),
      ['POST chatb/senders'],
      'created once',
    );
    await h.client.workflow.getHandle(p).terminate('test done');
  });

  test('without a Temporal client a create refuses before it makes anything; outside a workflow it links nothing', async (t) => {
    const stub = await startStub(t);
    const input: CreateTemplateInput = { channel: 'CHATA', template: { ...templateBody('never_made'), status: 'SUBMIT' } as CreateTemplateInput['template'] };
    const bare = createProvisioningActivities({ provisioning: stub.clients.provisioning, links: links() });
    await assert.rejects(
      asProcess(`chata-template:x:${ulid()}`, () => bare.createTemplate(input)),
      (err: unknown) => {
        assert.equal((err as { type?: string }).type, 'WorkerMisconfigured');
        return true;
      },
    );
    assert.deepEqual(stub.writes(), [], 'nothing made');
    const made = await bare.createTemplate(input);
    assert.equal(made.created, true);
    assert.deepEqual(await owners({ channel: 'CHATA', resourceType: 'TEMPLATE', resourceId: made.id }), []);
    await assert.rejects(
      h.client.workflow.getHandle(inboxIdOf({ channel: 'CHATA', resourceType: 'TEMPLATE', resourceId: made.id })).describe(),
      WorkflowNotFoundError,
    );
  });
});
