// The webhook update (PATCH .../webhooks/{webhookId}) through the platform client against the sandbox: its
// validation and errors as at create, ensure bringing a differing webhook up to date and leaving an equal one
// alone, and deliveries (a retry of one sent before the update included) signed with the secret of the moment.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyConversationWebhook } from '../../../common/signing.js';
import { PlatformConflictError, PlatformNotFoundError, PlatformValidationError } from '../../../platform/index.js';
import { provisioningErrorDetails } from '../../../platform/provisioning/client.js';
import { PROVISIONING_TRIGGERS } from '../../../platform/provisioning/types.js';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { pollUntil } from '../../helpers/deadline.js';
import { sandboxClients, sandboxControl } from '../../helpers/sandbox-clients.js';
import { Receiver } from '../../helpers/stub-server.js';

const OLD = 'old-secret-1234';
const NEW = 'new-secret-5678';

describe('provisioning webhook update against the sandbox', () => {
  let sb: Sandbox;
  let receiver: Receiver;
  const webhooks = () => sandboxClients(sb).provisioning.webhooks;
  const fieldsOf = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => assert.fail('no error'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof PlatformValidationError, String(err));
    return (provisioningErrorDetails(err).validationErrors ?? []).map((v) => v.field);
  };

  before(async () => {
    sb = await createSandbox();
    await sb.listen();
    receiver = await new Receiver('/hook').start();
  });
  after(async () => {
    await receiver.stop();
    await sb.close();
  });

  test('PATCH changes only the fields given; invalid fields, an empty body, an unknown webhook and a taken target are refused', async () => {
    const a = await webhooks().create({ target: `${receiver.url}/a`, secret: OLD, triggers: ['CHATA_TEMPLATE_APPROVED'] });
    const b = await webhooks().create({ target: `${receiver.url}/b`, secret: OLD, triggers: ['CHATA_TEMPLATE_APPROVED'] });

    const changed = await webhooks().update(a.id, { triggers: ['CHATA_TEMPLATE_APPROVED', 'CHATA_TEMPLATE_REJECTED', 'CHATA_TEMPLATE_APPROVED'] });
    assert.deepEqual(changed, { id: a.id, target: a.target, triggers: ['CHATA_TEMPLATE_APPROVED', 'CHATA_TEMPLATE_REJECTED'] });
    assert.equal('secret' in changed, false, 'the secret is never returned');
    assert.deepEqual(await webhooks().update(a.id, { secret: NEW }), changed, 'a secret alone changes nothing visible');

    assert.deepEqual(await fieldsOf(webhooks().update(a.id, { secret: 'short', triggers: ['NOPE' as never], target: 'not a url' })), [
      'target',
      'secret',
      'triggers[0]',
    ]);
    assert.deepEqual(await fieldsOf(webhooks().update(a.id, { triggers: [] })), ['triggers']);
    assert.deepEqual(await fieldsOf(webhooks().update(a.id, {})), ['body']);
    assert.deepEqual(await fieldsOf(webhooks().update(a.id, { secret: NEW, extra: 1 } as never)), ['extra']);
    await assert.rejects(webhooks().update('01NOSUCHWEBHOOK', { secret: NEW }), PlatformNotFoundError);
    await assert.rejects(webhooks().update(a.id, { target: b.target }), PlatformConflictError);
    assert.equal((await webhooks().update(a.id, { target: a.target })).target, a.target, 'its own target is not a conflict');

    const moved = await webhooks().update(b.id, { target: `${receiver.url}/c` });
    assert.deepEqual(
      (await webhooks().list()).map((w) => w.target),
      [a.target, `${receiver.url}/c`],
    );
    await webhooks().delete(a.id);
    await webhooks().delete(moved.id);
  });

  test('ensure: a differing webhook is updated, an equal one left alone; a retry after a rotation carries the new secret', async () => {
    const control = sandboxControl(sb);
    const target = `${receiver.url}/ensure`;
    const first = await webhooks().create({ target, secret: OLD, triggers: ['CHATA_TEMPLATE_APPROVED'] });
    const patches = async () => ((await control('GET', '/requests?area=provisioning&method=PATCH')) as { requests: unknown[] }).requests.length;

    const before = await patches();
    assert.deepEqual(await webhooks().ensure(target, OLD), { id: first.id, created: false, updated: ['secret', 'triggers'] });
    assert.deepEqual((await webhooks().list()).find((w) => w.id === first.id)!.triggers, [...PROVISIONING_TRIGGERS]);
    assert.deepEqual(await webhooks().ensure(target, OLD), { id: first.id, created: false, updated: [] });
    assert.equal(await patches(), before + 1, 'the equal webhook was left alone');

    // A template whose approval event is refused once (503): its retry, one second later, comes after the rotation.
    await control('PUT', '/provisioning/reviewer', { templates: { delayMs: 3_600_000 } });
    receiver.script = [503];
    const t = await sandboxClients(sb).provisioning.chataTemplates.create({
      name: 'rotation_retry',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Your code is ready' }],
    });
    await control('POST', '/provisioning/events', { resourceType: 'TEMPLATE', resourceId: t.id, trigger: 'CHATA_TEMPLATE_APPROVED' });
    await pollUntil(() => receiver.received.some((r) => r.path === '/hook/ensure'), 'the first delivery', 5_000);
    assert.deepEqual(await webhooks().ensure(target, NEW, undefined, { rotating: true }), { id: first.id, created: false, updated: ['secret'] });

    await pollUntil(() => receiver.received.filter((r) => r.path === '/hook/ensure').length >= 2, 'the retry', 10_000);
    const [refused, retried] = receiver.received.filter((r) => r.path === '/hook/ensure');
    assert.equal(refused!.raw, retried!.raw, 'the same event');
    assert.equal(verifyConversationWebhook({ headers: refused!.headers, rawBody: refused!.raw, secret: OLD }).ok, true, 'first signed with the old secret');
    assert.equal(verifyConversationWebhook({ headers: retried!.headers, rawBody: retried!.raw, secret: NEW }).ok, true, 'retried with the new one');
  });
});
