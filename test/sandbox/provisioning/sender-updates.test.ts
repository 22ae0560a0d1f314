// Provisioning area of the sandbox: a sender's change (PATCH .../<channel>/senders/{id}). RCS and CHATB changes of a
// live sender are reviewed (IN_REVIEW, then live with the change, or without it and a rejection event); a CHATA
// sender's business profile changes at once; bad fields are 400 invalid_input naming them.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil } from '../../helpers/deadline.js';
import { type Body, waitFor, provisioningSandboxSuite, rcsSenderBody, subscribe } from '../../helpers/sandbox-provisioning.js';

const fieldsOf = (body: Body): string[] => (body.validationErrors as { field: string }[]).map((v) => v.field);
const ANSWERS = { brand_description: 'Parcels', message_types: 'Tracking updates', opt_in: 'At checkout', opt_out: 'Send STOP', siren: '732829320' };

describe('provisioning sandbox: sender changes', () => {
  const { receiver, c } = provisioningSandboxSuite();
  const eventsOf = (id: string) => receiver.received.filter((r) => r.event.resourceId === id).map((r) => r.event);
  const stateOf = async (path: string) => (await c.api('GET', path)).body.state as string;

  async function launchedRcs(): Promise<string> {
    const id = (await c.api('POST', '/rcs/senders', rcsSenderBody())).body.id as string;
    await c.api('PUT', `/rcs/senders/${id}/questionnaire`, { answers: ANSWERS });
    await c.api('POST', `/rcs/senders/${id}:launch`, { contact: { email: 'ops@acme.example' } });
    await waitFor(() => eventsOf(id).some((e) => e.trigger === 'RCS_SENDER_STATUS_UPDATED' && e.details.state === 'LAUNCHED'), 'LAUNCHED');
    return id;
  }

  test('RCS: a LAUNCHED sender goes IN_REVIEW and back to LAUNCHED with the change; rejected, without it', async () => {
    await subscribe(c, receiver, ['RCS_SENDER_STATUS_UPDATED', 'RCS_SENDER_REJECTED', 'RCS_SENDER_COMMENT_ADDED']);
    const id = await launchedRcs();
    // A review long enough for the second PATCH to find it still running, however slow the machine.
    await c.control('PUT', '/provisioning/reviewer', { rcs: { outcome: 'launch', delayMs: 1_000 } });
    const changed = await c.api('PATCH', `/rcs/senders/${id}`, { description: 'Returns too' });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.state, 'IN_REVIEW');
    assert.equal(changed.body.countryStatus.FR.status, 'LAUNCHED', 'the agent stays live in its countries');
    assert.equal(changed.body.description, rcsSenderBody().description, 'not applied before the decision');
    const busy = await c.api('PATCH', `/rcs/senders/${id}`, { description: 'Again' });
    assert.equal(busy.status, 409);
    await waitFor(() => eventsOf(id).filter((e) => e.details.state === 'LAUNCHED').length === 2, 'LAUNCHED again');
    assert.equal((await c.api('GET', `/rcs/senders/${id}`)).body.description, 'Returns too');

    await c.control('PUT', '/provisioning/reviewer', { rcs: { outcome: 'reject', delayMs: 20, comment: 'Logo is blurred' } });
    await c.api('PATCH', `/rcs/senders/${id}`, { logo: { url: 'https://acme.example/blurred.png' } });
    await waitFor(() => eventsOf(id).some((e) => e.trigger === 'RCS_SENDER_REJECTED'), 'rejected');
    const rejection = eventsOf(id).find((e) => e.trigger === 'RCS_SENDER_REJECTED')!;
    assert.deepEqual([rejection.details.state, rejection.comment], ['LAUNCHED', 'Logo is blurred']);
    await waitFor(() => eventsOf(id).filter((e) => e.details.state === 'LAUNCHED').length === 4, 'LAUNCHED after the rejection');
    const after = (await c.api('GET', `/rcs/senders/${id}`)).body;
    assert.equal(after.state, 'LAUNCHED');
    assert.notEqual(after.logo?.url, 'https://acme.example/blurred.png');
  });

  test('RCS: bad fields and the banner size are refused; a sender in review cannot be changed', async () => {
    const id = (await c.api('POST', '/rcs/senders', rcsSenderBody())).body.id as string;
    const bad = await c.api('PATCH', `/rcs/senders/${id}`, { displayName: 'Other', brandPhoneNumber: 'call us', websites: [] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errorCode, 'invalid_input');
    assert.deepEqual(fieldsOf(bad.body).sort(), ['brandPhoneNumber', 'displayName', 'websites']);
    const banner = await c.api('PATCH', `/rcs/senders/${id}`, { banner: { url: 'https://acme.example/b.png', width: 1440, height: 400 } });
    assert.equal(banner.body.errorCode, 'file_has_wrong_dimensions');
    const draft = await c.api('PATCH', `/rcs/senders/${id}`, { description: 'Draft words' });
    assert.deepEqual([draft.status, draft.body.state, draft.body.description], [200, 'DRAFT', 'Draft words'], 'a DRAFT changes at once');
  });

  test('CHATB: an ACTIVE sender is reviewed; the rejection is CHATB_SENDER_REJECTED with the sender ACTIVE', async () => {
    await subscribe(c, receiver, ['CHATB_SENDER_COMMENT_ADDED', 'CHATB_SENDER_REJECTED']);
    const id = (await c.api('POST', '/chatb/senders', { displayName: 'Acme', categoryCode: 'RETAIL' })).body.id as string;
    await waitFor(() => eventsOf(id).some((e) => e.details.state === 'ACTIVE'), 'ACTIVE');
    const wrong = await c.api('PATCH', `/chatb/senders/${id}`, { subcategoryCode: 'BANKING' });
    assert.deepEqual([wrong.status, fieldsOf(wrong.body)], [400, ['subcategoryCode']], 'checked against the current category');
    const changed = await c.api('PATCH', `/chatb/senders/${id}`, { subcategoryCode: 'FASHION', description: 'Clothes' });
    assert.equal(changed.body.state, 'IN_REVIEW');
    await waitFor(() => eventsOf(id).filter((e) => e.details.state === 'ACTIVE').length === 2, 'approved');
    assert.equal((await c.api('GET', `/chatb/senders/${id}`)).body.subcategoryCode, 'FASHION');

    await c.control('PUT', '/provisioning/reviewer', { chatbSenders: { outcome: 'reject', delayMs: 20, comment: 'Not a bank' } });
    await c.api('PATCH', `/chatb/senders/${id}`, { categoryCode: 'FINANCE', subcategoryCode: 'BANKING' });
    await waitFor(() => eventsOf(id).some((e) => e.trigger === 'CHATB_SENDER_REJECTED'), 'rejected');
    const rejection = eventsOf(id).find((e) => e.trigger === 'CHATB_SENDER_REJECTED')!;
    assert.deepEqual([rejection.details.state, rejection.comment], ['ACTIVE', 'Not a bank']);
    const after = (await c.api('GET', `/chatb/senders/${id}`)).body;
    assert.deepEqual([after.state, after.categoryCode], ['ACTIVE', 'RETAIL']);
  });

  test('CHATA: the business profile changes at once, whatever the state; DELETED is 409', async () => {
    const id = (await c.api('POST', '/chata/senders', { phoneNumber: '+33611111111', displayName: 'Acme' })).body.id as string;
    await pollUntil(async () => (await stateOf(`/chata/senders/${id}`)) === 'ACTIVE', 'ACTIVE');
    const changed = await c.api('PATCH', `/chata/senders/${id}`, { about: 'Shoes', photoUrl: 'https://acme.example/p.png' });
    assert.deepEqual([changed.status, changed.body.state, changed.body.about, changed.body.photoUrl], [200, 'ACTIVE', 'Shoes', 'https://acme.example/p.png']);
    const bad = await c.api('PATCH', `/chata/senders/${id}`, { about: '', photoUrl: 'not a url', vertical: 'ALCOHOL' });
    assert.deepEqual(fieldsOf(bad.body).sort(), ['about', 'photoUrl', 'vertical']);

    const other = (await c.api('POST', '/chata/senders', { phoneNumber: '+33622222222', displayName: 'Old', status: 'DRAFT' })).body.id as string;
    await c.api('DELETE', `/chata/senders/${other}`);
    assert.equal((await c.api('PATCH', `/chata/senders/${other}`, { about: 'Gone' })).status, 409);
  });
});
