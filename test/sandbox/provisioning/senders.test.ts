// Provisioning area of the sandbox: RCS senders (questionnaire, launch, per-country review,
// relaunch, test numbers, banner size), CHATA senders (normal and embedded) and CHATB senders.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { type Body, sleep, waitFor, provisioningSandboxSuite, rcsSenderBody, subscribe } from '../../helpers/sandbox-provisioning.js';

const fieldsOf = (body: Body): string[] => (body.validationErrors as { field: string }[]).map((v) => v.field);
const descriptionOf = (body: Body, field: string): string =>
  (body.validationErrors as { field: string; description: string }[]).find((v) => v.field === field)?.description ?? '';

const RCS_TRIGGERS = [
  'RCS_SENDER_CREATED',
  'RCS_SENDER_STATUS_UPDATED',
  'RCS_SENDER_OPERATOR_STATUS_UPDATED',
  'RCS_SENDER_REJECTED',
  'RCS_SENDER_COMMENT_ADDED',
];
const rcsSender = (over: Record<string, unknown> = {}) => rcsSenderBody({ logo: { url: 'https://acme.example/logo.png' }, ...over });
const GENERAL_ANSWERS = { brand_description: 'Parcels', message_types: 'Tracking updates', opt_in: 'At checkout', opt_out: 'Send STOP' };

describe('provisioning sandbox: senders', () => {
  const { receiver, c } = provisioningSandboxSuite();

  /** Events of one resource, in arrival order. */
  const eventsOf = (id: string) => receiver.received.filter((r) => r.event.resourceId === id).map((r) => r.event);

  describe('RCS questionnaire and creation', () => {
    test('MULTI_USE is refused listing the valid use cases; FR adds a required siren, US required us_* questions', async () => {
      const old = await c.api('GET', '/rcs/questionnaire/MULTI_USE');
      assert.equal(old.status, 400);
      assert.equal(old.body.errorCode, 'invalid_input');
      assert.equal(descriptionOf(old.body, 'useCase'), 'must be one of MULTIUSE, TRANSACTIONAL, PROMOTIONAL, OTP');

      const general = await c.api('GET', '/rcs/questionnaire/MULTIUSE');
      assert.equal(general.body.useCase, 'MULTIUSE');
      assert.ok(!general.body.questions.some((q: Body) => q.id === 'siren'), 'no siren without FR');
      const fr = await c.api('GET', '/rcs/questionnaire/MULTIUSE?countries=FR,US');
      const siren = fr.body.questions.find((q: Body) => q.id === 'siren');
      assert.deepEqual({ required: siren.required, country: siren.country }, { required: true, country: 'FR' });
      const us = fr.body.questions.filter((q: Body) => q.country === 'US');
      assert.ok(us.length >= 1 && us.every((q: Body) => q.required && q.id.startsWith('us_')), 'US adds required us_* questions');
      assert.deepEqual(fieldsOf((await c.api('GET', '/rcs/questionnaire/MULTIUSE?countries=France')).body), ['countries[0]']);
    });

    test('a banner that is not 1440x448 is file_has_wrong_dimensions with the required size', async () => {
      const res = await c.api('POST', '/rcs/senders', rcsSender({ banner: { url: 'https://acme.example/b.png', width: 1440, height: 400 } }));
      assert.equal(res.status, 400);
      assert.equal(res.body.errorCode, 'file_has_wrong_dimensions');
      assert.deepEqual(res.body.additionalInformation, { requiredWidth: 1440, requiredHeight: 448 });
    });

    test('field rules: website url length, phone format, use case, countries', async () => {
      const res = await c.api(
        'POST',
        '/rcs/senders',
        rcsSender({
          websites: [{ url: `https://acme.example/${'x'.repeat(260)}` }],
          brandPhoneNumber: 'call us',
          useCase: 'MULTI_USE',
          countries: [],
          description: 'd'.repeat(513),
        }),
      );
      assert.equal(res.status, 400);
      assert.deepEqual(fieldsOf(res.body).sort(), ['brandPhoneNumber', 'countries', 'description', 'useCase', 'websites[0].url']);
      const digits = await c.api('POST', '/rcs/senders', rcsSender({ brandPhoneNumber: '0612345678' }));
      assert.equal(digits.status, 200, JSON.stringify(digits.body));
      assert.equal(digits.body.state, 'DRAFT');
      assert.match(digits.body.agentId, /_agent$/);
      assert.deepEqual(digits.body.countryStatus, { FR: { status: 'NOT_LAUNCHED', operators: {} } });
      assert.deepEqual(digits.body.testNumbers, []);
    });
  });

  describe('RCS launch', () => {
    test('questionnaire, launch, test numbers, per-operator webhooks then LAUNCHED', async () => {
      await subscribe(c, receiver, RCS_TRIGGERS);
      const created = await c.api('POST', '/rcs/senders', rcsSender());
      const id = created.body.id as string;
      await waitFor(() => eventsOf(id).length === 1, 'RCS_SENDER_CREATED');

      const early = await c.api('POST', `/rcs/senders/${id}/testNumbers`, { phoneNumber: '+33611111111' });
      assert.equal(early.status, 400);
      assert.equal(early.body.errorCode, 'add_test_number_not_allowed_before_launch');

      const incomplete = await c.api('POST', `/rcs/senders/${id}:launch`, { contact: { email: 'ops@acme.example' } });
      assert.equal(incomplete.status, 400);
      assert.equal(incomplete.body.errorCode, 'questionnaire_incomplete');
      assert.ok(fieldsOf(incomplete.body).includes('answers.siren'), 'siren is named');

      const partial = await c.api('PUT', `/rcs/senders/${id}/questionnaire`, { answers: GENERAL_ANSWERS });
      assert.equal(partial.status, 400);
      assert.equal(partial.body.errorCode, 'invalid_input');
      assert.deepEqual(fieldsOf(partial.body), ['answers.siren']);
      const badSiren = await c.api('PUT', `/rcs/senders/${id}/questionnaire`, { answers: { ...GENERAL_ANSWERS, siren: '12', us_brand_ein: 'x' } });
      assert.deepEqual(fieldsOf(badSiren.body).sort(), ['answers.siren', 'answers.us_brand_ein']);
      assert.equal((await c.api('PUT', `/rcs/senders/${id}/questionnaire`, { answers: { ...GENERAL_ANSWERS, siren: '732829320' } })).status, 200);

      const both = await c.api('POST', `/rcs/senders/${id}:launch`, { contact: { email: 'ops@acme.example', phoneNumber: '+33622222222' } });
      assert.deepEqual(fieldsOf(both.body), ['contact']);
      const launched = await c.api('POST', `/rcs/senders/${id}:launch`, { contact: { email: 'ops@acme.example' } });
      assert.equal(launched.status, 200, JSON.stringify(launched.body));
      assert.equal(launched.body.state, 'IN_REVIEW');
      assert.equal(launched.body.countryStatus.FR.status, 'PENDING');

      const numbers = await c.api('POST', `/rcs/senders/${id}/testNumbers`, {
        phoneNumber: '+33611111111',
        features: ['ACTION_COMPOSE', 'ACTION_OPEN_URL_IN_WEBVIEW'],
      });
      assert.equal(numbers.status, 200);
      assert.ok(Array.isArray(numbers.body.testNumbers), 'testNumbers is an array');
      assert.deepEqual(numbers.body.testNumbers[0].phoneNumber, '+33611111111');
      assert.deepEqual(numbers.body.testNumbers[0].features, ['ACTION_COMPOSE', 'ACTION_OPEN_URL_IN_WEBVIEW']);
      assert.equal(typeof numbers.body.testNumbers[0].state, 'string');

      await waitFor(() => eventsOf(id).some((e) => e.trigger === 'RCS_SENDER_STATUS_UPDATED' && e.details.state === 'LAUNCHED'), 'LAUNCHED');
      const events = eventsOf(id);
      assert.ok(
        receiver.received.every((r) => r.verified),
        'signatures verify',
      );
      assert.deepEqual(
        events.map((e) => e.sequence),
        events.map((_, i) => i + 1),
        'sequences arrive in order',
      );
      assert.equal(events[1]!.trigger, 'RCS_SENDER_STATUS_UPDATED');
      assert.equal(events[1]!.details.state, 'IN_REVIEW');
      const operators = events.filter((e) => e.trigger === 'RCS_SENDER_OPERATOR_STATUS_UPDATED');
      const got = await c.api('GET', `/rcs/senders/${id}`);
      const frOperators = Object.keys(got.body.countryStatus.FR.operators);
      assert.ok(frOperators.length >= 2, 'FR has operators');
      assert.deepEqual(operators.map((e) => e.details.operator).sort(), frOperators.sort());
      assert.ok(
        operators.every((e) => e.details.country === 'FR' && e.details.operatorStatus === 'LAUNCHED' && e.channel === 'RCS'),
        'operator events are FR LAUNCHED',
      );
      assert.equal(events.at(-1)!.details.state, 'LAUNCHED');
      assert.equal(got.body.state, 'LAUNCHED');
      assert.equal(got.body.countryStatus.FR.status, 'LAUNCHED');
      assert.ok(
        Object.values(got.body.countryStatus.FR.operators).every((s) => s === 'LAUNCHED'),
        'all FR operators LAUNCHED',
      );

      const twice = await c.api('POST', `/rcs/senders/${id}:launch`, { contact: { email: 'ops@acme.example' } });
      assert.equal(twice.status, 409);
    });

    test('a rejected country, then relaunch after the reviewer changes its mind', async () => {
      await subscribe(c, receiver, RCS_TRIGGERS);
      await c.control('PUT', '/provisioning/reviewer', {
        rcs: { outcome: 'launch', delayMs: 20, rejectCountries: ['DE'], comment: 'DE: company register extract missing' },
      });
      const id = (await c.api('POST', '/rcs/senders', rcsSender({ countries: ['FR', 'DE'] }))).body.id as string;
      await c.api('PUT', `/rcs/senders/${id}/questionnaire`, { answers: { ...GENERAL_ANSWERS, siren: '732829320' } });
      await c.api('POST', `/rcs/senders/${id}:launch`, { contact: { phoneNumber: '+33622222222' } });
      await waitFor(() => eventsOf(id).some((e) => e.details.state === 'PARTIALLY_LAUNCHED'), 'PARTIALLY_LAUNCHED');
      const rejected = eventsOf(id).find((e) => e.trigger === 'RCS_SENDER_REJECTED');
      assert.equal(rejected?.details.country, 'DE');
      assert.equal(rejected?.comment, 'DE: company register extract missing');
      assert.ok(
        eventsOf(id).some((e) => e.trigger === 'RCS_SENDER_COMMENT_ADDED'),
        'the reviewer comment is emitted',
      );
      const partial = await c.api('GET', `/rcs/senders/${id}`);
      assert.equal(partial.body.state, 'PARTIALLY_LAUNCHED');
      assert.equal(partial.body.countryStatus.DE.status, 'REJECTED');
      assert.equal(partial.body.countryStatus.FR.status, 'LAUNCHED');
      assert.equal(partial.body.comments[0].text, 'DE: company register extract missing');

      await c.control('PUT', '/provisioning/reviewer', { rcs: { outcome: 'launch', delayMs: 20 } });
      const relaunched = await c.api('POST', `/rcs/senders/${id}:relaunch`, { contact: { email: 'ops@acme.example' } });
      assert.equal(relaunched.status, 200, JSON.stringify(relaunched.body));
      assert.equal(relaunched.body.state, 'IN_REVIEW');
      assert.equal(relaunched.body.countryStatus.DE.status, 'PENDING');
      assert.equal(relaunched.body.countryStatus.FR.status, 'LAUNCHED');
      await waitFor(() => eventsOf(id).some((e) => e.details.state === 'LAUNCHED'), 'LAUNCHED');
      const done = await c.api('GET', `/rcs/senders/${id}`);
      assert.equal(done.body.state, 'LAUNCHED');
      assert.equal(done.body.countryStatus.DE.status, 'LAUNCHED');
      assert.equal((await c.api('POST', `/rcs/senders/${id}:relaunch`, { contact: { email: 'ops@acme.example' } })).status, 409);
    });

    test('outcome reject rejects the whole sender', async () => {
      await subscribe(c, receiver, RCS_TRIGGERS);
      await c.control('PUT', '/provisioning/reviewer', { rcs: { outcome: 'reject', delayMs: 20 } });
      const id = (await c.api('POST', '/rcs/senders', rcsSender({ countries: ['GB'] }))).body.id as string;
      await c.api('PUT', `/rcs/senders/${id}/questionnaire`, { answers: GENERAL_ANSWERS });
      await c.api('POST', `/rcs/senders/${id}:launch`, { contact: { email: 'ops@acme.example' } });
      await waitFor(() => eventsOf(id).some((e) => e.trigger === 'RCS_SENDER_STATUS_UPDATED' && e.details.state === 'REJECTED'), 'REJECTED');
      const rejection = eventsOf(id).find((e) => e.trigger === 'RCS_SENDER_REJECTED');
      assert.equal(rejection?.details.country, undefined);
      assert.equal(typeof rejection?.comment, 'string');
      const got = await c.api('GET', `/rcs/senders/${id}`);
      assert.equal(got.body.state, 'REJECTED');
      assert.equal(got.body.countryStatus.GB.status, 'REJECTED');
      const list = await c.api('GET', '/rcs/senders?filterStates=REJECTED');
      assert.deepEqual(
        list.body.senders.map((s: Body) => s.id),
        [id],
      );
    });
  });

  describe('CHATA senders', () => {
    test('a submitted sender becomes ACTIVE, reported by CHATA_WABA_ACCOUNT_CHANGED', async () => {
      await subscribe(c, receiver, ['CHATA_WABA_ACCOUNT_CHANGED']);
      const res = await c.api('POST', '/chata/senders', {
        phoneNumber: '+14155550100',
        displayName: 'Acme',
        vertical: 'OTHER',
        conversationApiAppDetails: { appId: '01HZX3Q4Y5Z6A7B8C9D0E1F2G3', region: 'EU' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.state, 'PENDING');
      assert.deepEqual(res.body.compatibleRegions, ['EU']);
      await waitFor(() => receiver.received.length === 1, 'the activation');
      const e = receiver.received[0]!;
      assert.ok(e.verified, 'signature verifies');
      assert.deepEqual([e.event.channel, e.event.resourceType, e.event.resourceId, e.event.details.state], ['CHATA', 'SENDER', res.body.id, 'ACTIVE']);
      const got = await c.api('GET', `/chata/senders/${res.body.id}`);
      assert.equal(got.body.state, 'ACTIVE');
      assert.ok(got.body.maxTps > 0, 'an active sender has maxTps');
      assert.equal((await c.api('GET', '/chata/senders?filterStates=ACTIVE')).body.totalSize, 1);
    });

    test('embedded signup needs businessAccountId and phoneNumberId', async () => {
      const missing = await c.api('POST', '/chata/senders:embedded', { businessAccountId: '123456789' });
      assert.equal(missing.status, 400);
      assert.deepEqual(fieldsOf(missing.body), ['phoneNumberId']);
      const ok = await c.api('POST', '/chata/senders:embedded', { businessAccountId: '123456789', phoneNumberId: '987654321' });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.state, 'PENDING');
    });

    test('error outcome: ERROR with the errorCode in the webhook and the resource', async () => {
      await subscribe(c, receiver, ['CHATA_WABA_ACCOUNT_CHANGED']);
      await c.control('PUT', '/provisioning/reviewer', { chataSenders: { outcome: 'error', errorCode: 'NO_VERIFIED_PHONE_NUMBER', delayMs: 20 } });
      const id = (await c.api('POST', '/chata/senders', { phoneNumber: '+14155550101', displayName: 'Acme' })).body.id as string;
      await waitFor(() => receiver.received.length === 1, 'the error');
      assert.equal(receiver.received[0]!.event.details.state, 'ERROR');
      assert.equal(receiver.received[0]!.event.details.errorCode, 'NO_VERIFIED_PHONE_NUMBER');
      const got = await c.api('GET', `/chata/senders/${id}`);
      assert.equal(got.body.state, 'ERROR');
      assert.equal(got.body.errorCode, 'NO_VERIFIED_PHONE_NUMBER');
      assert.equal(typeof got.body.errorReason, 'string');
    });

    test('field rules: E.164, vertical values, app ID, DRAFT is not reviewed', async () => {
      const bad = await c.api('POST', '/chata/senders', {
        phoneNumber: '4155550100',
        displayName: 'Acme',
        vertical: 'TOBACCO',
        conversationApiAppDetails: { appId: 'app-1', region: 'ASIA' },
        description: 'd'.repeat(513),
      });
      assert.deepEqual(fieldsOf(bad.body).sort(), [
        'conversationApiAppDetails.appId',
        'conversationApiAppDetails.region',
        'description',
        'phoneNumber',
        'vertical',
      ]);
      assert.match(descriptionOf(bad.body, 'vertical'), /ALCOHOL, ONLINE_GAMBLING, OTC_DRUGS, PHYSICAL_GAMBLING/);
      const draft = await c.api('POST', '/chata/senders', { phoneNumber: '+14155550102', displayName: 'Acme', status: 'DRAFT' });
      await sleep(80);
      assert.equal((await c.api('GET', `/chata/senders/${draft.body.id}`)).body.state, 'DRAFT');
    });
  });

  describe('CHATB senders', () => {
    test('categories carry nameEnglish and subcategories', async () => {
      const res = await c.api('GET', '/chatb/categories');
      assert.equal(res.status, 200);
      assert.ok(res.body.categories.length > 0, 'categories exist');
      for (const cat of res.body.categories) {
        assert.equal(typeof cat.nameEnglish, 'string');
        assert.ok(
          cat.subcategories.every((s: Body) => typeof s.code === 'string' && typeof s.nameEnglish === 'string'),
          'subcategories have code and nameEnglish',
        );
      }
    });

    test('category code must exist; display name at most 64', async () => {
      const res = await c.api('POST', '/chatb/senders', { displayName: 'x'.repeat(65), categoryCode: 'SPACE' });
      assert.deepEqual(fieldsOf(res.body).sort(), ['categoryCode', 'displayName']);
      assert.match(descriptionOf(res.body, 'categoryCode'), /RETAIL/);
      const sub = await c.api('POST', '/chatb/senders', { displayName: 'Acme', categoryCode: 'RETAIL', subcategoryCode: 'HOTEL' });
      assert.deepEqual(fieldsOf(sub.body), ['subcategoryCode']);
    });

    test('activation shows in the resource and in a CHATB_SENDER_COMMENT_ADDED with details.state ACTIVE', async () => {
      await subscribe(c, receiver, ['CHATB_SENDER_COMMENT_ADDED', 'CHATB_SENDER_REJECTED']);
      const res = await c.api('POST', '/chatb/senders', { displayName: 'Acme', categoryCode: 'RETAIL', subcategoryCode: 'FASHION' });
      assert.equal(res.body.state, 'IN_REVIEW');
      await waitFor(() => receiver.received.length === 1, 'the activation');
      assert.equal(receiver.received[0]!.event.trigger, 'CHATB_SENDER_COMMENT_ADDED');
      assert.equal(receiver.received[0]!.event.details.state, 'ACTIVE');
      assert.equal((await c.api('GET', `/chatb/senders/${res.body.id}`)).body.state, 'ACTIVE');

      await c.control('PUT', '/provisioning/reviewer', { chatbSenders: { outcome: 'reject', delayMs: 20 } });
      const rejected = await c.api('POST', '/chatb/senders', { displayName: 'Acme 2', categoryCode: 'FINANCE' });
      await waitFor(() => receiver.received.length === 2, 'the rejection');
      assert.equal(receiver.received[1]!.event.trigger, 'CHATB_SENDER_REJECTED');
      assert.equal((await c.api('GET', `/chatb/senders/${rejected.body.id}`)).body.state, 'REJECTED');
    });
  });
});
