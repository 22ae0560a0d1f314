// The provisioning webhook intake reads what the spec promises (a trigger, an optional comment, the
// resource's JSON) as well as the sandbox's full envelope: one schema after the signature, the resource
// found by a fixed precedence, an eventId from the body's hash when the platform sends none, and events
// that are not ours acknowledged and ignored. Routing is tested in webhook-routing.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { parseProvisioningEvent } from '../../../api/callbacks/provisioning.js';
import type { ProvisioningEvent } from '../../../processes/provisioning/contract.js';
import { ApiError } from '../../../api/errors.js';

const parse = (body: unknown) => parseProvisioningEvent(body, Buffer.from(JSON.stringify(body)), new Date('2026-01-02T03:04:05.000Z'));
const event = (body: unknown) => {
  const e = parse(body);
  assert.ok(!('ignored' in e), `not ignored: ${JSON.stringify(e)}`);
  return e as ProvisioningEvent;
};
const fieldsOf400 = (body: unknown) => {
  try {
    parse(body);
  } catch (err) {
    assert.ok(err instanceof ApiError && err.statusCode === 400, String(err));
    return err.details!.map((d) => d.field);
  }
  throw new Error('no 400');
};

describe('provisioning webhook intake: reading a delivery', () => {
  test('the full envelope is taken as it is', () => {
    const full = {
      eventId: 'ev-1',
      projectId: 'p',
      trigger: 'RCS_SENDER_OPERATOR_STATUS_UPDATED',
      channel: 'RCS',
      resourceType: 'SENDER',
      resourceId: 'r1',
      sequence: 4,
      eventTime: '2026-01-01T00:00:00.000Z',
      comment: 'c',
      details: { country: 'FR', operator: 'orange', operatorStatus: 'LAUNCHED' },
    };
    assert.deepEqual(event(full), full);
  });

  test('a minimal event: channel and type from the trigger, the ID from the resource JSON, receive time, hash eventId', () => {
    const body = { trigger: 'CHATA_TEMPLATE_REJECTED', comment: 'Wrong format', payload: { id: 't1', state: 'REJECTED' } };
    const e = event(body);
    assert.deepEqual(e, {
      eventId: `sha256:${createHash('sha256').update(JSON.stringify(body)).digest('base64url')}`,
      trigger: 'CHATA_TEMPLATE_REJECTED',
      channel: 'CHATA',
      resourceType: 'TEMPLATE',
      resourceId: 't1',
      eventTime: '2026-01-02T03:04:05.000Z',
      timeReceived: true,
      comment: 'Wrong format',
      details: {},
    });
    assert.equal(e.sequence, undefined, 'no sequence: a hint');
    assert.equal(event(body).eventId, e.eventId, 'the same body, the same eventId');
    assert.notEqual(event({ ...body, comment: 'Other' }).eventId, e.eventId);
  });

  test('resource ID precedence: resourceId, resource, payload, template, sender, account, top-level id', () => {
    const t = 'CHATB_TEMPLATE_APPROVED';
    const all = { resourceId: 'a', resource: { id: 'b' }, payload: { id: 'c' }, template: { id: 'd' }, sender: { id: 'e' }, account: { id: 'f' }, id: 'g' };
    const order = ['resourceId', 'resource', 'payload', 'template', 'sender', 'account', 'id'] as const;
    order.forEach((key, i) => {
      const body: Record<string, unknown> = { trigger: t, resourceType: 'TEMPLATE' };
      for (const k of order.slice(i)) body[k] = all[k];
      assert.equal(event(body).resourceId, 'abcdefg'[i], `${key} wins over what follows`);
    });
  });

  test('channel and resource type: envelope, then the key naming a type, then the trigger', () => {
    const target = (body: Record<string, unknown>) => {
      const e = event({ id: 'x', ...body });
      return `${e.channel}/${e.resourceType}`;
    };
    const cases: [string, string][] = [
      ['CHATA_TEMPLATE_APPROVED', 'CHATA/TEMPLATE'],
      ['CHATA_TEMPLATE_CATEGORY_FUTURE_UPDATE', 'CHATA/TEMPLATE'],
      ['CHATA_SENDER_QUALITY_RATING_CHANGED', 'CHATA/SENDER'],
      ['CHATA_WABA_ACCOUNT_CHANGED', 'CHATA/SENDER'],
      ['CHATA_ACCOUNT_COMMENT_ADDED', 'CHATA/ACCOUNT'],
      ['RCS_ACCOUNT_COMMENT_ADDED', 'RCS/ACCOUNT'],
      ['RCS_SENDER_CREATED', 'RCS/SENDER'],
      ['CHATB_SENDER_INACTIVE', 'CHATB/SENDER'],
      ['CHATB_TEMPLATE_COMMENT_ADDED', 'CHATB/TEMPLATE'],
    ];
    for (const [trigger, expected] of cases) assert.equal(target({ trigger }), expected, trigger);
    assert.equal(target({ trigger: 'CHATA_WABA_ACCOUNT_CHANGED', account: { id: 'w' } }), 'CHATA/ACCOUNT', 'the key names the type');
    assert.equal(target({ trigger: 'CHATA_TEMPLATE_APPROVED', channel: 'CHATB', resourceType: 'SENDER' }), 'CHATB/SENDER', 'the envelope wins');
    assert.equal(
      target({ trigger: 'CHATA_SOMETHING_NEW', channel: 'CHATA', resourceType: 'SENDER' }),
      'CHATA/SENDER',
      'unknown triggers are kept when routable',
    );
  });

  test('not ours: a trigger of no provisioning resource, or no resource ID anywhere, is ignored', () => {
    assert.match((parse({ trigger: 'BATCH_STATUS_UPDATE', id: 'b1' }) as { ignored: string }).ignored, /BATCH_STATUS_UPDATE names no provisioning resource/);
    assert.match((parse({ trigger: 'RCS_SENDER_REJECTED', comment: 'x', resource: { state: 'REJECTED' } }) as { ignored: string }).ignored, /no resource ID/);
  });

  test('a body that is not an object, or a field of the wrong type, is a 400 naming it', () => {
    assert.deepEqual(fieldsOf400([{ trigger: 'X' }]), ['body']);
    assert.deepEqual(fieldsOf400({ id: 'x' }), ['body.trigger']);
    assert.deepEqual(fieldsOf400({ trigger: 'CHATA_TEMPLATE_APPROVED', id: 'x', sequence: 'one', eventTime: 'yesterday', channel: 'SMS' }).sort(), [
      'body.channel',
      'body.eventTime',
      'body.sequence',
    ]);
    assert.deepEqual(fieldsOf400({ trigger: 'CHATA_TEMPLATE_APPROVED', template: { id: 7 } }), ['body.template.id']);
  });
});
