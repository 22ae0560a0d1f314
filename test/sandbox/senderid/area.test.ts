// Sender ID sandbox area over HTTP: markets, policies, templates, validation with the platform's
// reasons, registrations CRUD and list, attachments, callback configuration.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { alphaBody, company, pdf, senderIdSuite, type Body } from '../../helpers/sandbox-senderid.js';

describe('senderId sandbox: requirements and registrations', () => {
  const { c } = senderIdSuite();

  test('market details: AU alphanumeric by default, long number on request, policies reached by the answers', async () => {
    const alpha = await c.api('GET', '/markets/details?marketCode=AU');
    assert.equal(alpha.status, 200);
    assert.equal(alpha.body.totalSize, 1);
    const mv = alpha.body.marketVersions[0];
    assert.equal(mv.registrationType, 'ALPHANUMERIC_SENDER_ID');
    assert.deepEqual(
      mv.specialConditions.chainedSpecialConditions.map((s: Body) => s.policyId),
      ['pol-au-alpha-aggregator', 'pol-au-alpha-brand'],
    );
    const long = await c.api('GET', '/markets/details?marketCode=AU&registrationType=LONG_NUMBER');
    assert.equal(long.body.marketVersions[0].registrationType, 'LONG_NUMBER');
    assert.equal((await c.api('GET', '/markets/details?marketCode=SE')).body.totalSize, 0);
    assert.equal((await c.api('GET', '/markets/details?registrationType=FAX')).status, 400);
    const avail = await c.api('GET', '/markets/availability?registrationType=SHORT_CODE');
    assert.deepEqual(avail.body.markets, [{ marketCode: 'US', marketName: 'United States' }]);
  });

  test('policy: fields with validations, attachment definitions with mandatory flag, MIME types and size; template download', async () => {
    const p = await c.api('GET', '/policies/pol-au-alpha-aggregator');
    assert.equal(p.status, 200);
    const sender = p.body.fields.find((f: Body) => f.key === 'senderId');
    assert.equal(sender.section, 'senderIdDetails');
    assert.ok(sender.validations.some((v: Body) => v.rule === 'maxLength' && v.value === 11));
    const def = p.body.attachmentDefinitions[0];
    assert.equal(def.mandatory, true);
    assert.equal(def.template, true);
    assert.ok(def.acceptedMimeTypes.includes('application/pdf'));
    assert.ok(def.maxSizeBytes > 0);
    const t = await c.api('GET', `/policies/pol-au-alpha-aggregator/attachments/${def.id}/template`);
    assert.equal(t.status, 200);
    assert.equal(t.headers['content-type'], 'application/pdf');
    assert.match(String(t.headers['content-disposition']), /attachment; filename=".+\.pdf"/);
    assert.ok(t.raw.subarray(0, 5).equals(Buffer.from('%PDF-')));
    assert.equal((await c.api('GET', '/policies/pol-au-alpha-brand/attachments/att-au-trademark/template')).status, 404);
    const missing = await c.api('GET', '/policies/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.status, 'NOT_FOUND');
  });

  test('create refuses what the policy refuses, naming field and rule; nothing is created', async () => {
    const bad = await c.api('POST', '/registrations', {
      policyId: 'pol-au-alpha-aggregator',
      requestDetails: [
        { senderIdDetails: [{ senderId: 'THIS_IS_TOO_LONG' }], additionalDetails: [{ companyName: 'Acme', website: 'ftp://x', colour: 'red' }] },
      ],
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 400);
    assert.equal(bad.body.error.status, 'INVALID_ARGUMENT');
    const reasons = bad.body.error.details.map((d: Body) => `${d.field} ${d.rule}`);
    assert.deepEqual(reasons, [
      'requestDetails[0].senderIdDetails.senderId maxLength',
      'requestDetails[0].senderIdDetails.senderId pattern',
      'requestDetails[0].additionalDetails.website pattern',
      'requestDetails[0].additionalDetails.email required',
      'requestDetails[0].additionalDetails.useCase required',
      'requestDetails[0].additionalDetails.colour unknownField',
    ]);
    const assigned = await c.api('POST', '/registrations', {
      policyId: 'pol-au-long-standard',
      requestDetails: [{ senderIdDetails: [{ senderId: 'ACME' }], additionalDetails: [company, { useCase: 'OTP' }] }],
    });
    assert.equal(assigned.status, 400);
    assert.deepEqual(
      assigned.body.error.details.map((d: Body) => d.rule),
      ['notAllowed'],
    );
    assert.equal((await c.api('POST', '/registrations', { policyId: 'nope', requestDetails: [] })).status, 404);
    assert.equal((await c.api('POST', '/registrations', {})).body.error.details[0].field, 'policyId');
    assert.equal((await c.api('GET', '/registrations')).body.totalSize, 0);
  });

  test('create answers 200 IN_QUEUE; get, update, list (type filter defaults to alphanumeric, pages), delete', async () => {
    await c.control('PUT', '/senderid/reviewer', { stepMs: 60_000 });
    const created = await c.api('POST', '/registrations', alphaBody());
    assert.equal(created.status, 200);
    const r = created.body;
    assert.equal(r.status, 'IN_QUEUE');
    assert.equal(r.senderId, 'ACME');
    assert.equal(r.marketCode, 'AU');
    assert.equal(r.registrationType, 'ALPHANUMERIC_SENDER_ID');
    assert.match(r.createTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    assert.deepEqual(
      r.logs.map((l: Body) => l.registrationState),
      ['IN_QUEUE'],
    );
    assert.equal(r.etaDate, null);
    assert.equal((await c.api('GET', `/registrations/${r.id}`)).body.id, r.id);

    const upd = await c.api('PUT', `/registrations/${r.id}`, { requestDetails: alphaBody(undefined, 'ACME2').requestDetails });
    assert.equal(upd.status, 200);
    assert.equal(upd.body.senderId, 'ACME2');
    assert.equal((await c.api('PUT', `/registrations/${r.id}`, { requestDetails: [{ senderIdDetails: [{}] }] })).status, 400);

    const long = await c.api('POST', '/registrations', {
      policyId: 'pol-au-long-standard',
      requestDetails: [{ additionalDetails: [company, { useCase: 'OTP' }] }],
    });
    assert.equal(long.body.senderId, null);
    await c.api('POST', '/registrations', alphaBody(undefined, 'OTHER'));
    const page1 = await c.api('GET', '/registrations?pageSize=1');
    assert.equal(page1.body.totalSize, 2, 'long numbers are not in the default (alphanumeric) list');
    assert.equal(page1.body.registrations.length, 1);
    const page2 = await c.api('GET', `/registrations?pageSize=1&pageToken=${page1.body.nextPageToken}`);
    assert.equal(page2.body.nextPageToken, '');
    assert.notEqual(page2.body.registrations[0].id, page1.body.registrations[0].id);
    assert.equal((await c.api('GET', '/registrations?registrationType=LONG_NUMBER')).body.registrations[0].id, long.body.id);
    assert.equal((await c.api('GET', '/registrations?senderId=OTHER')).body.totalSize, 1);
    assert.equal((await c.api('GET', '/registrations?pageSize=500')).body.error.details[0].rule, 'range');

    assert.deepEqual((await c.api('DELETE', `/registrations/${r.id}`)).body, {});
    assert.equal((await c.api('GET', `/registrations/${r.id}`)).status, 404);
  });

  test('attachments: MIME and size checked first; WAITING then COMPLETED, or FAILED on demand; a new upload replaces the old', async () => {
    await c.control('PUT', '/senderid/reviewer', { stepMs: 60_000 });
    const r = (await c.api('POST', '/registrations', alphaBody())).body;
    const path = `/registrations/${r.id}/attachments/att-au-loa`;
    const wrong = await c.api('POST', path, { ...pdf(), mimeType: 'text/plain' });
    assert.equal(wrong.status, 400);
    assert.deepEqual(
      wrong.body.error.details.map((d: Body) => `${d.field} ${d.rule}`),
      ['file.mimeType mimeType'],
    );
    const big = await c.api('POST', path, pdf(5 * 1024 * 1024 + 1));
    assert.deepEqual(
      big.body.error.details.map((d: Body) => `${d.field} ${d.rule}`),
      ['file.content maxSize'],
    );
    assert.equal((await c.api('POST', `/registrations/${r.id}/attachments/att-us-brief`, pdf())).status, 404);
    assert.equal((await c.api('GET', `/registrations/${r.id}`)).body.attachments.length, 0);

    const up = await c.api('POST', path, pdf());
    assert.equal(up.status, 200);
    assert.equal(up.body.uploadStatus, 'WAITING');
    assert.equal(up.body.documentType, 'Letter of authorisation');
    let now: Body;
    for (let i = 0; i < 100; i++) {
      now = (await c.api('GET', `/registrations/${r.id}`)).body;
      if (now.attachments[0].uploadStatus !== 'WAITING') break;
      await new Promise((res) => setTimeout(res, 10));
    }
    assert.equal(now.attachments[0].uploadStatus, 'COMPLETED');

    await c.control('PUT', '/senderid/reviewer', { uploadOutcome: 'fail' });
    const again = await c.api('POST', path, pdf(10));
    for (let i = 0; i < 100; i++) {
      now = (await c.api('GET', `/registrations/${r.id}`)).body;
      if (now.attachments[0].uploadStatus !== 'WAITING') break;
      await new Promise((res) => setTimeout(res, 10));
    }
    assert.equal(now.attachments.length, 1, 'the new upload replaced the old one');
    assert.equal(now.attachments[0].attachmentId, again.body.attachmentId);
    assert.equal(now.attachments[0].uploadStatus, 'FAILED');
  });

  test('callback configuration: 404 before a PUT, then the secret; an empty secret is refused', async () => {
    assert.equal((await c.api('GET', '/callback-configuration')).status, 404);
    assert.equal((await c.api('PUT', '/callback-configuration', { hmacSecret: '' })).body.error.details[0].rule, 'required');
    const put = await c.api('PUT', '/callback-configuration', { hmacSecret: 's3cret' });
    assert.equal(put.status, 200);
    const { projectId } = put.body;
    assert.deepEqual((await c.api('GET', '/callback-configuration')).body, { hmacSecret: 's3cret', projectId });
  });

  test('reset clears registrations, secrets, faults and reviewer settings', async () => {
    await c.api('POST', '/registrations', alphaBody());
    await c.api('PUT', '/callback-configuration', { hmacSecret: 'x' });
    await c.control('PUT', '/senderid/callback-faults', { drop: 2 });
    await c.control('POST', '/reset');
    assert.equal((await c.api('GET', '/callback-configuration')).status, 404);
    assert.equal((await c.api('GET', '/registrations')).body.totalSize, 0);
    assert.deepEqual((await c.control('GET', '/senderid/callback-faults')).body, { delayMs: 0, duplicate: 0, reorder: false, drop: 0 });
    assert.equal((await c.control('GET', '/senderid/reviewer')).body.stepMs, 300);
  });
});
