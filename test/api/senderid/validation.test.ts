// Sender ID routes: what the OpenAPI document refuses is a 400 naming the field; what the policy refuses is a
// 422 naming the field and rule exactly as the platform would (checked against the sandbox's own answer), and
// starts nothing. Look-ups of markets and policies pass through.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPlatformClients } from '../../../platform/index.js';
import { senderIdViolations } from '../../../platform/senderid/client.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { brandRegistration, company } from '../../helpers/senderid.js';

type Detail = { field: string; rule: string };

describe('sender ID routes: validation', () => {
  // With a worker: a file whose only harness never starts one leaves Temporal's native runtime up and never exits.
  const h = useHarness();

  const post = (payload: unknown) => h.api({ method: 'POST', url: '/v1/senderid/registrations', payload: payload as Record<string, unknown> });

  test('schema errors are 400s naming the field', async () => {
    const { requestDetails: _omit, ...noDetails } = brandRegistration(uniqueName('v'));
    const missing = await post(noDetails);
    assert.equal(missing.statusCode, 400, missing.body);
    assert.ok(
      missing.json().error.details.some((d: Detail) => d.field === 'body.requestDetails'),
      missing.body,
    );
    const extra = await post({ ...brandRegistration(uniqueName('v')), colour: 'red' });
    assert.equal(extra.statusCode, 400);
    const badKey = await post({ ...brandRegistration('has space') });
    assert.equal(badKey.statusCode, 400);
    assert.ok(
      badKey.json().error.details.some((d: Detail) => d.field === 'body.key'),
      badKey.body,
    );
  });

  test("policy violations are 422s with the platform's own fields and rules, and start nothing", async () => {
    const requestDetails = [
      {
        senderIdDetails: [{ senderId: 'THIS_IS_TOO_LONG' }],
        additionalDetails: [{ companyName: 'Acme', website: 'ftp://x', colour: 'red', useCase: 'TRANSACTIONAL' }],
      },
    ];
    const key = uniqueName('v');
    const res = await post({ key, policyId: 'pol-au-alpha-brand', requestDetails });
    assert.equal(res.statusCode, 422, res.body);
    const ours = (res.json().error.details as Detail[]).map((d) => `${d.field} ${d.rule}`);
    let platform: string[] = [];
    try {
      await createPlatformClients(h.config.platform).senderid.createRegistration({ policyId: 'pol-au-alpha-brand', requestDetails });
      assert.fail('the platform accepted it');
    } catch (err) {
      platform = senderIdViolations(err).map((v) => `body.${v.field} ${v.rule}`);
    }
    assert.deepEqual(ours, platform);
    assert.ok(ours.includes('body.requestDetails[0].senderIdDetails.senderId maxLength'), ours.join(', '));
    assert.ok(ours.includes('body.requestDetails[0].additionalDetails.email required'));
    const started = await h.api({ method: 'GET', url: `/v1/senderid/registrations/${encodeURIComponent(`senderid-registration:sandbox-project:${key}`)}` });
    assert.equal(started.statusCode, 404, 'nothing started');
  });

  test('rules between fields: unknown policy, market mismatch, a sender ID on a policy that assigns it, a reserved key', async () => {
    const unknown = await post({ ...brandRegistration(uniqueName('v')), policyId: 'pol-nope' });
    assert.equal(unknown.statusCode, 422);
    assert.equal(unknown.json().error.details[0].field, 'body.policyId');
    const market = await post({ ...brandRegistration(uniqueName('v')), marketCode: 'US' });
    assert.equal(market.statusCode, 422);
    assert.equal(market.json().error.details[0].field, 'body.marketCode');
    const assigned = await post({
      key: uniqueName('v'),
      policyId: 'pol-au-long-standard',
      requestDetails: [{ senderIdDetails: [{ senderId: 'Acme' }], additionalDetails: [company] }],
    });
    assert.equal(assigned.statusCode, 422);
    assert.deepEqual(
      assigned.json().error.details.map((d: Detail) => `${d.field} ${d.rule}`),
      ['body.requestDetails[0].senderIdDetails.senderId notAllowed'],
    );
    const reserved = await post(brandRegistration('reg-123'));
    assert.equal(reserved.statusCode, 422);
    assert.equal(reserved.json().error.details[0].field, 'body.key');
  });

  test('attachments: bad base64 is a 400; an unknown process 404', async () => {
    const url = `/v1/senderid/registrations/${encodeURIComponent('senderid-registration:sandbox-project:nobody')}/attachments`;
    const bad = await h.api({
      method: 'POST',
      url,
      payload: { attachmentDefinitionId: 'att-au-loa', fileName: 'a.pdf', mimeType: 'application/pdf', content: 'a' },
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(bad.json().error.details[0].field, 'body.content');
    const none = await h.api({
      method: 'POST',
      url,
      payload: { attachmentDefinitionId: 'att-au-loa', fileName: 'a.pdf', mimeType: 'application/pdf', content: 'JVBERg==' },
    });
    assert.equal(none.statusCode, 404, none.body);
  });

  test('markets and policies pass through', async () => {
    const markets = await h.api({ method: 'GET', url: '/v1/senderid/markets?registrationType=LONG_NUMBER' });
    assert.equal(markets.statusCode, 200, markets.body);
    assert.ok(markets.json().markets.some((m: { marketCode: string }) => m.marketCode === 'AU'));
    const au = await h.api({ method: 'GET', url: '/v1/senderid/markets?marketCode=AU' });
    assert.equal(au.json().marketVersions[0].registrationType, 'ALPHANUMERIC_SENDER_ID');
    const policy = await h.api({ method: 'GET', url: '/v1/senderid/policies/pol-au-alpha-aggregator' });
    assert.equal(policy.statusCode, 200);
    assert.equal(policy.json().attachmentDefinitions[0].id, 'att-au-loa');
    assert.equal((await h.api({ method: 'GET', url: '/v1/senderid/policies/pol-nope' })).statusCode, 404);
    const template = await h.api({ method: 'GET', url: '/v1/senderid/policies/pol-au-alpha-aggregator/attachments/att-au-loa/template' });
    assert.equal(template.statusCode, 200, template.body);
    assert.match(String(template.headers['content-disposition']), /^attachment; filename="/);
    assert.ok(template.rawPayload.length > 0);
    const noTemplate = await h.api({ method: 'GET', url: '/v1/senderid/policies/pol-au-alpha-brand/attachments/att-au-trademark/template' });
    assert.equal(noTemplate.statusCode, 404, noTemplate.body);
    const docs = await h.api({ method: 'GET', url: '/docs/json' });
    assert.ok(docs.json().paths['/v1/senderid/policies/{policyId}/attachments/{attachmentDefinitionId}/template'], 'documented');
  });
});
