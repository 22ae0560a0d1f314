// The sender ID client against the real sandbox area (sandbox/areas/senderid/): both sides of
// docs/senderid-wire.md agree, relayflow's pre-check refuses what the sandbox refuses with the same
// field + rule, and the sandbox's signed callbacks verify with common/signing.ts (rotation included).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS } from '../../../common/config.js';
import { verifySenderIdCallback } from '../../../common/signing.js';
import { PlatformNotFoundError, PlatformValidationError } from '../../../platform/errors.js';
import { policyIdForAnswers, senderIdViolations, validateRequestDetails, type SenderIdClient } from '../../../platform/senderid/client.js';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { sandboxClients, sandboxControl } from '../../helpers/sandbox-clients.js';
import { pollUntil } from '../../helpers/deadline.js';
import { Receiver } from '../../helpers/stub-server.js';

describe('sender ID client against the sandbox', () => {
  let sb: Sandbox;
  let client: SenderIdClient;
  const receiver = new Receiver('/callbacks/senderid');
  const received = receiver.received;
  let receiverUrl: string;

  const control = sandboxControl(() => sb, '/senderid');

  before(async () => {
    sb = await createSandbox();
    await sb.listen();
    client = sandboxClients(sb).senderid;
    receiverUrl = (await receiver.start()).url;
    // Registrations stay where the test puts them: the simulated review waits a minute per step.
    await control('PUT', '/reviewer', { stepMs: 60_000 });
  });

  after(async () => {
    await receiver.stop();
    await sb.close();
  });

  const waitFor = (pred: () => boolean, ms = 3000) => pollUntil(pred, 'the callbacks', ms, 20);

  test('requirements: market, the policy the answers lead to, its template as bytes', async () => {
    assert.ok((await client.marketAvailability()).some((m) => m.marketCode === 'AU'));
    const details = await client.marketRequirements({ marketCode: 'AU' });
    const market = details.marketVersions[0]!;
    const policyId = policyIdForAnswers(market, ['No'])!;
    assert.equal(policyId, 'pol-au-alpha-aggregator');
    const policy = await client.policyRequirements(policyId);
    assert.equal(policy.registrationType, 'ALPHANUMERIC_SENDER_ID');
    const def = policy.attachmentDefinitions.find((d) => d.template)!;
    const file = await client.downloadTemplate(policyId, def.id);
    assert.equal(file.contentType, 'application/pdf');
    assert.match(file.fileName, /\.pdf$/);
    assert.ok(file.content.subarray(0, 5).equals(Buffer.from('%PDF-')));
    assert.deepEqual((await client.marketRequirements({ marketCode: 'ZZ' })).marketVersions, []);
    await assert.rejects(client.policyRequirements('nope'), PlatformNotFoundError);
  });

  test("relayflow's pre-check refuses what the sandbox refuses, with the same field + rule", async () => {
    const policy = await client.policyRequirements('pol-au-alpha-aggregator');
    const bad = [
      { senderIdDetails: [{ senderId: '!!' }], additionalDetails: [{ companyName: 'Acme', website: 'ftp://x', fax: '1' }] },
      { additionalDetails: [{ companyName: 'Acme', website: 'https://acme.test', email: 'ops@acme.test', useCase: 'SPAM' }] },
    ];
    const err = await client.createRegistration({ policyId: policy.id, requestDetails: bad }).catch((e: unknown) => e);
    assert.ok(err instanceof PlatformValidationError);
    const platform = senderIdViolations(err).map((v) => [v.field, v.rule]);
    assert.ok(platform.length >= 5);
    assert.deepEqual(
      validateRequestDetails(policy, bad).map((v) => [v.field, v.rule]),
      platform,
    );
  });

  test('registrations: create, read, list across pages, update, upload, delete', async () => {
    const requestDetails = [
      {
        senderIdDetails: [{ senderId: 'ACME' }],
        additionalDetails: [{ companyName: 'Acme', website: 'https://acme.test', email: 'ops@acme.test', useCase: 'OTP' }],
      },
    ];
    const made = [];
    for (const tag of ['t1', 't2', 't3']) made.push(await client.createRegistration({ policyId: 'pol-au-alpha-aggregator', requestDetails, tags: [tag] }));
    assert.equal(made[0]!.status, 'IN_QUEUE');
    assert.equal(made[0]!.senderId, 'ACME');
    assert.deepEqual((await client.getRegistration(made[1]!.id)).tags, ['t2']);

    const listed: string[] = [];
    for await (const r of client.listAllRegistrations({ marketCode: 'AU', registrationType: 'ALPHANUMERIC_SENDER_ID', pageSize: 1 })) listed.push(r.id);
    for (const r of made) assert.ok(listed.includes(r.id));
    assert.equal(new Set(listed).size, listed.length);

    const updated = await client.updateRegistration(made[0]!.id, { notificationContacts: ['ops@acme.test'] });
    assert.deepEqual(updated.notificationContacts, ['ops@acme.test']);

    const a = await client.uploadAttachment(made[0]!.id, 'att-au-loa', {
      fileName: 'loa.pdf',
      mimeType: 'application/pdf',
      content: Buffer.from('%PDF-1.4 signed'),
    });
    assert.equal(a.uploadStatus, 'WAITING');
    assert.equal(a.attachmentDefinitionId, 'att-au-loa');
    const refused = await client
      .uploadAttachment(made[0]!.id, 'att-au-loa', { fileName: 'loa.txt', mimeType: 'text/plain', content: Buffer.from('x') })
      .catch((e: unknown) => e);
    assert.ok(refused instanceof PlatformValidationError);
    assert.deepEqual(
      senderIdViolations(refused).map((v) => [v.field, v.rule]),
      [['file.mimeType', 'mimeType']],
    );

    await client.deleteRegistration(made[2]!.id);
    await assert.rejects(client.getRegistration(made[2]!.id), PlatformNotFoundError);
    await assert.rejects(client.deleteRegistration(made[2]!.id), PlatformNotFoundError);
  });

  test('callback configuration and signed callbacks: verified with the current secret, and with the previous one during a rotation', async () => {
    assert.equal(await client.getCallbackConfiguration(), undefined);
    assert.deepEqual(await client.setCallbackConfiguration('secret-1'), { hmacSecret: 'secret-1', projectId: SANDBOX_CREDENTIALS.projectId });
    assert.equal((await client.getCallbackConfiguration())?.hmacSecret, 'secret-1');

    const r = await client.createRegistration({
      policyId: 'pol-au-alpha-brand',
      requestDetails: [
        {
          senderIdDetails: [{ senderId: 'ACME' }],
          additionalDetails: [{ companyName: 'Acme', website: 'https://acme.test', email: 'ops@acme.test', useCase: 'OTP' }],
        },
      ],
      callbackUrl: receiverUrl,
    });
    received.length = 0;
    await control('POST', `/registrations/${r.id}/state`, { state: 'ON_HOLD', message: 'Checking.' });
    await waitFor(() => received.length >= 1);
    const first = received[0]!;
    assert.equal((JSON.parse(first.raw) as { registrationId: string }).registrationId, r.id);
    assert.deepEqual(verifySenderIdCallback({ headers: first.headers, rawBody: first.raw, secrets: ['secret-1'] }), { ok: true, secretIndex: 0 });

    await client.setCallbackConfiguration('secret-2');
    await control('POST', `/registrations/${r.id}/state`, { state: 'IN_PROGRESS' });
    await waitFor(() => received.length >= 2);
    const second = received[1]!;
    assert.deepEqual(verifySenderIdCallback({ headers: second.headers, rawBody: second.raw, secrets: ['secret-2', 'secret-1'] }), { ok: true, secretIndex: 0 });
    // The callback signed before the rotation still passes while the old secret is kept, and not after.
    assert.deepEqual(verifySenderIdCallback({ headers: first.headers, rawBody: first.raw, secrets: ['secret-2', 'secret-1'] }), { ok: true, secretIndex: 1 });
    assert.deepEqual(verifySenderIdCallback({ headers: first.headers, rawBody: first.raw, secrets: ['secret-2'] }), { ok: false, reason: 'bad_signature' });
  });
});
