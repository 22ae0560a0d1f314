// An onboarding plan turned into steps: each child's input as its own route builds it, dependencies and the
// bundle's binding, and every rule the plan breaks reported at once with the field it names.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateCodecKey } from '../../../common/codec.js';
import { loadConfig } from '../../../common/config.js';
import type { StepPlan } from '../../../processes/onboarding/onboarding/contract.js';
import type { Policy } from '../../../common/wire/senderid.js';

import {
  buildAddedSteps,
  buildOnboardingPlan,
  planHash,
  type OnboardingBody,
  type PlanContext,
  type PlanLookups,
} from '../../../processes/onboarding/onboarding/routes/plan.js';
import { chataSenderInput, rcsSenderInput, templateInput } from '../../../processes/provisioning/routes/inputs.js';
import { rcsSenderFields } from '../../helpers/provisioning.js';

const config = loadConfig({
  RELAYFLOW_API_KEYS: 'a-very-long-api-key-for-tests-000',
  RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'),
  PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
});
const policy: Policy = {
  id: 'pol-au',
  marketCode: 'AU',
  registrationType: 'ALPHANUMERIC_SENDER_ID',
  name: 'AU',
  senderIdAssigned: false,
  manualApproval: false,
  attachmentDefinitions: [],
  fields: [{ section: 'senderIdDetails', key: 'senderId', label: 'Sender ID', required: true, validations: [] }],
};
const lookups: PlanLookups = {
  questionnaire: () => ({ useCase: 'MULTIUSE', questions: [{ id: 'q1', text: 'What do you send?', required: true }] }),
  categories: [{ code: 'RETAIL', name: 'Retail', subcategories: [] } as never],
  policy: (id) => (id === policy.id ? policy : undefined),
};
const ctx: PlanContext = { projectId: 'proj', config, hashSubject: (s) => `h${s.replace(/\D/g, '')}`, lookups };

const rcs = (step: string, more: Record<string, unknown> = {}) => ({
  step,
  ...rcsSenderFields(`Brand ${step}`, { description: 'd' }),
  answers: { q1: 'orders' },
  contact: { email: 'a@example.com' },
  ...more,
});
const chata = (step: string, phoneNumber = '+33612345678') => ({ step, phoneNumber, displayName: 'Acme' });
const chatb = (step: string) => ({ step, displayName: `B ${step}`, categoryCode: 'RETAIL' });
const template = (step: string, sender: string, name = `t_${step}`) => ({
  step,
  sender,
  name,
  language: 'en_US',
  category: 'UTILITY' as const,
  components: [{ type: 'BODY' as const, text: 'Hi {{1}}' }],
});
const senderId = (step: string, more: Record<string, unknown> = {}) => ({
  step,
  key: `key-${step}`,
  policyId: 'pol-au',
  requestDetails: [{ senderIdDetails: [{ senderId: 'Acme' }] }],
  ...more,
});

const plan = (body: Record<string, unknown>) => buildOnboardingPlan({ key: 'acme', ...body } as OnboardingBody, ctx);
const byName = (steps: StepPlan[]) => Object.fromEntries(steps.map((s) => [s.name, s]));
const fields = (errors: { field: string; rule: string }[]) => errors.map((e) => `${e.field} ${e.rule}`);

describe('an onboarding plan', () => {
  test('without a subproject, everything is made in the platform project: no step is bound to one', () => {
    const { errors, steps } = plan({
      webhook: { target: 'https://hooks.example.com/p', secret: 's3cret-value' },
      chatbSenders: [chatb('cb')],
      templates: [template('t', 'cb')],
    });
    assert.deepEqual(errors, []);
    assert.deepEqual(
      steps.map((st) => [st.name, st.bind]),
      [
        ['webhook', undefined],
        ['cb', undefined],
        ['t', undefined],
      ],
    );
  });

  test("becomes steps with each child's own input, in dependency order with the bundle bound to the subproject", () => {
    const { errors, steps } = plan({
      subproject: { displayName: 'team-a' },
      bundle: { displayName: 'Acme', region: 'EU' },
      webhook: { target: 'https://hooks.example.com/p', secret: 's3cret-value' },
      rcsSenders: [rcs('rcs1')],
      chataSenders: [chata('wa')],
      chatbSenders: [chatb('cb')],
      templates: [template('t1', 'wa'), template('t2', 'cb')],
      senderIds: [senderId('sid')],
    });
    assert.deepEqual(errors, []);
    const s = byName(steps);
    assert.deepEqual(Object.keys(s), ['subproject', 'bundle', 'webhook', 'rcs1', 'wa', 'cb', 'sid', 't1', 't2']);
    assert.deepEqual(s.subproject!.process?.processId, 'subproject:proj:team-a');
    assert.deepEqual(s.subproject!.after, []);
    assert.equal(s.bundle!.process?.processId, 'bundle-provisioning:proj:acme', "the bundle is keyed by the onboarding's key");
    assert.deepEqual(s.bundle!.after, [{ step: 'subproject' }]);
    assert.deepEqual(s.bundle!.bind, [{ from: 'subproject', field: 'subprojectId', into: 'bundle.subprojectId' }]);
    // The customer's resources, and the webhook that hears them, are made in its subproject; sender IDs are not.
    const inSubproject = [{ from: 'subproject', field: 'subprojectId', into: 'projectId' }];
    assert.deepEqual(s.webhook, {
      name: 'webhook',
      kind: 'webhook',
      webhook: { target: 'https://hooks.example.com/p', secret: 's3cret-value' },
      after: [{ step: 'subproject' }],
      bind: inSubproject,
    });
    for (const sender of ['rcs1', 'wa', 'cb']) assert.deepEqual(s[sender]!.after, [{ step: 'subproject' }, { step: 'bundle' }, { step: 'webhook' }]);
    for (const name of ['rcs1', 'wa', 'cb', 't1', 't2']) assert.deepEqual(s[name]!.bind, inSubproject, name);
    assert.equal(s.sid!.bind, undefined);
    assert.deepEqual(s.t1!.after, [{ step: 'wa', hard: true }]);
    assert.equal(s.t1!.kind, 'chata-template');
    assert.equal(s.t2!.kind, 'chatb-template', "the template's channel is its sender's");
    assert.equal(s.t2!.process?.processId, 'chatb-template:proj:t_t2:en_US');
    assert.deepEqual(s.sid!.after, [{ step: 'subproject' }]);
    // Exactly what each process's own route starts (no step or sender field in them).
    const { step: _r, ...rcsBody } = rcs('rcs1');
    assert.deepEqual(s.rcs1!.process?.input, rcsSenderInput(rcsBody, 'body', { ...ctx, questionnaire: undefined }).input);
    const { step: _w, ...chataBody } = chata('wa');
    assert.deepEqual(s.wa!.process, {
      workflowType: 'chataSenderApproval',
      processId: 'chata-sender:proj:h33612345678',
      input: chataSenderInput(chataBody, 'body', ctx).input,
    });
    const { step: _t, sender: _s, ...templateBody } = template('t1', 'wa');
    assert.deepEqual(s.t1!.process?.input, templateInput(templateBody, 'body', { ...ctx, channel: 'CHATA' }).input);
  });

  test('without singletons, senders wait for nothing and a bundle binds nothing', () => {
    const { errors, steps } = plan({ bundle: { displayName: 'Acme', region: 'US', createSubproject: true }, chataSenders: [chata('wa')] });
    assert.deepEqual(errors, []);
    const s = byName(steps);
    assert.deepEqual(s.bundle!.after, []);
    assert.equal(s.bundle!.bind, undefined);
    assert.deepEqual(s.wa!.after, [{ step: 'bundle' }]);
  });

  test("step names are unique across the plan and not a singleton's", () => {
    const { errors } = plan({
      subproject: { displayName: 'x' },
      chataSenders: [chata('a'), chata('bundle', '+33612345679')],
      chatbSenders: [chatb('a')],
      senderIds: [senderId('subproject')],
    });
    assert.deepEqual(fields(errors), ['body.chataSenders.1.step reserved', 'body.chatbSenders.0.step unique', 'body.senderIds.0.step reserved']);
  });

  test('a template names a CHATA or CHATB sender step of the plan', () => {
    const { errors } = plan({
      rcsSenders: [rcs('r')],
      senderIds: [senderId('sid')],
      templates: [template('t1', 'nobody'), template('t2', 'r'), template('t3', 'sid')],
    });
    assert.deepEqual(fields(errors), ['body.templates.0.sender sender_step', 'body.templates.1.sender sender_step', 'body.templates.2.sender sender_step']);
    assert.match(errors[0]!.message, /names no step/);
    assert.match(errors[1]!.message, /RCS sender/);
  });

  test('two items that make the same process: an error on the second, naming its key field', () => {
    const { errors } = plan({
      chataSenders: [chata('a', '+33612345678'), chata('b', '+33 6 12 34 56 78')],
      templates: [template('t1', 'a', 'same'), template('t2', 'a', 'same'), template('t3', 'b', 'other')],
    });
    assert.deepEqual(fields(errors), ['body.chataSenders.1.phoneNumber duplicate_process', 'body.templates.1.name duplicate_process']);
    assert.match(errors[1]!.message, /step t1/);
  });

  test('a bundle cannot create its own subproject in a plan with one', () => {
    const { errors } = plan({ subproject: { displayName: 'x' }, bundle: { displayName: 'Acme', region: 'EU', createSubproject: true } });
    assert.deepEqual(fields(errors), ['body.bundle.createSubproject exclusive']);
  });

  test("each item's own rules, named under its place in the plan, all at once", () => {
    const { errors } = plan({
      bundle: { displayName: 'Acme', region: 'EU', conversationApp: false, processingMode: 'DISPATCH' },
      rcsSenders: [rcs('r', { banner: { url: 'https://example.com/b.png', width: 1400, height: 448 }, answers: { nope: 'x' } })],
      templates: [template('t', 'nobody', 'x')].map((t) => ({ ...t, messageSendTtlSeconds: 60 })),
      senderIds: [senderId('s1', { policyId: 'pol-unknown' }), senderId('s2', { requestDetails: [{ senderIdDetails: [{}] }] })],
    });
    assert.deepEqual(fields(errors), [
      'body.bundle.processingMode requires',
      'body.rcsSenders.0.banner.width banner_size',
      'body.rcsSenders.0.answers.q1 required',
      'body.rcsSenders.0.answers.nope unknown_question',
      'body.senderIds.0.policyId notFound',
      'body.senderIds.1.requestDetails[0].senderIdDetails.senderId required',
      'body.templates.0.sender sender_step',
      'body.templates.0.messageSendTtlSeconds not_allowed',
    ]);
  });

  test('a plan with no step is refused naming body', () => {
    assert.deepEqual(fields(plan({}).errors), ['body required']);
    assert.deepEqual(fields(plan({ templates: [] }).errors), ['body required']);
  });

  test('the plan hash ignores key order and follows content', () => {
    const a = { key: 'acme', subproject: { displayName: 'x' }, bundle: { region: 'EU', displayName: 'Acme' } } as OnboardingBody;
    const b = { bundle: { displayName: 'Acme', region: 'EU' }, subproject: { displayName: 'x' }, key: 'acme' } as OnboardingBody;
    assert.equal(planHash(a), planHash(b));
    assert.match(planHash(a), /^[0-9a-f]{64}$/);
    assert.notEqual(planHash(a), planHash({ ...a, bundle: { region: 'US', displayName: 'Acme' } } as OnboardingBody));
  });
});

describe('steps added to a running onboarding', () => {
  const existing = [
    { name: 'subproject', kind: 'subproject' as const, processId: 'subproject:proj:x' },
    { name: 'webhook', kind: 'webhook' as const },
    { name: 'wa', kind: 'chata-sender' as const, processId: 'chata-sender:proj:h33612345678' },
  ];

  test('new senders wait for the singletons it has; a template may name an existing sender', () => {
    const { errors, steps } = buildAddedSteps({ chatbSenders: [chatb('cb')], templates: [template('t1', 'wa'), template('t2', 'cb')] }, ctx, existing, false);
    assert.deepEqual(errors, []);
    const s = byName(steps);
    assert.deepEqual(s.cb!.after, [{ step: 'subproject' }, { step: 'webhook' }]);
    assert.deepEqual(s.t1!.after, [{ step: 'wa', hard: true }]);
    assert.equal(s.t1!.kind, 'chata-template');
  });

  test('names and processes are unique against the existing steps too', () => {
    const { errors } = buildAddedSteps({ chataSenders: [chata('wa'), chata('wa2')], senderIds: [senderId('bundle')] }, ctx, existing, false);
    assert.deepEqual(fields(errors), [
      'body.chataSenders.0.step unique',
      'body.chataSenders.0.phoneNumber duplicate_process',
      'body.chataSenders.1.phoneNumber duplicate_process',
      'body.senderIds.0.step reserved',
    ]);
  });

  test('with an Idempotency-Key, a step exactly like an existing one is the same request again; a different one still clashes', () => {
    assert.deepEqual(buildAddedSteps({ chataSenders: [chata('wa')] }, ctx, existing, true).errors, []);
    assert.deepEqual(fields(buildAddedSteps({ chatbSenders: [chatb('wa')] }, ctx, existing, true).errors), ['body.chatbSenders.0.step unique']);
    // A pending step reports no process yet: its kind is what can be compared.
    const pending = [...existing, { name: 't1', kind: 'chata-template' as const }];
    assert.deepEqual(buildAddedSteps({ templates: [template('t1', 'wa')] }, ctx, pending, true).errors, []);
    assert.deepEqual(fields(buildAddedSteps({ templates: [template('t1', 'wa')] }, ctx, pending, false).errors), ['body.templates.0.step unique']);
  });

  test('an empty request is refused naming body', () => {
    assert.deepEqual(fields(buildAddedSteps({}, ctx, existing, false).errors), ['body required']);
  });
});
