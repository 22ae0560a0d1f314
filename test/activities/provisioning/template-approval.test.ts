// Template activities against an in-memory platform: found before created, created once, failures mapped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startStub, failure, tplInput, addTemplate, type Obj } from '../../helpers/provisioning-stub.js';

test('createTemplate: an existing template with that name and language on page 2 is returned, nothing is created', async (t) => {
  const stub = await startStub(t);
  const list = stub.store.templates.chata;
  addTemplate(list, 1);
  addTemplate(list, 2, { name: 'order_update', language: 'fr_FR' });
  addTemplate(list, 3, { name: 'order_update', state: 'REJECTED' });
  addTemplate(list, 4);
  const result = await stub.activities.createTemplate({ channel: 'CHATA', template: tplInput() });
  assert.equal(result.created, false);
  assert.equal(result.id, 'old-3');
  assert.equal(result.state, 'REJECTED');
  assert.deepEqual(stub.writes(), []);
  const lists = stub.seen.filter((r) => r.path === 'chata/templates');
  assert.deepEqual(
    lists.map((r) => r.query.pageToken),
    [undefined, '2'],
  );
  assert.ok(lists.every((r) => r.query.pageSize === '1000' && r.authorization === 'Bearer tok'));
});

test('createTemplate: creates exactly once when no live template matches (a DELETED one does not count)', async (t) => {
  const stub = await startStub(t);
  addTemplate(stub.store.templates.chatb, 1, { name: 'order_update', state: 'DELETED' });
  addTemplate(stub.store.templates.chatb, 2);
  addTemplate(stub.store.templates.chatb, 3);
  const result = await stub.activities.createTemplate({ channel: 'CHATB', template: tplInput() });
  assert.equal(result.created, true);
  assert.equal(result.state, 'IN_PROGRESS');
  assert.deepEqual(stub.writes(), ['POST chatb/templates']);
  assert.deepEqual(stub.seen.find((r) => r.method === 'POST')!.body, tplInput());
  assert.deepEqual(stub.store.templates.chata, []);
});

test('createTemplate retried after a lost answer finds the template instead of creating a second', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST chata/templates'] });
  const input = { channel: 'CHATA' as const, template: tplInput() };
  await failure(stub.activities.createTemplate(input), 'PlatformUnavailableError', false);
  const retried = await stub.activities.createTemplate(input);
  assert.equal(retried.created, false);
  assert.equal(retried.id, stub.store.templates.chata[0]!.id);
  assert.equal(stub.store.templates.chata.length, 1);
  assert.deepEqual(stub.writes(), ['POST chata/templates']);
});

test('createTemplate: a 409 from a concurrent creator is answered with that template', async (t) => {
  const stub = await startStub(t, { beforeCreate: { 'chata/templates': () => addTemplate(stub.store.templates.chata, 9, { name: 'order_update' }) } });
  const result = await stub.activities.createTemplate({ channel: 'CHATA', template: tplInput() });
  assert.deepEqual([result.created, result.id], [false, 'old-9']);
  assert.equal(stub.store.templates.chata.length, 1);
});

test('createTemplate: invalid_input is non-retryable and carries each field error', async (t) => {
  const stub = await startStub(t);
  const details = await failure(
    stub.activities.createTemplate({ channel: 'CHATA', template: { ...tplInput(), category: 'PROMO' as 'UTILITY' } }),
    'PlatformValidationError',
    true,
  );
  assert.equal(details.httpStatus, 400);
  assert.equal(details.code, 'invalid_input');
  assert.deepEqual((details.details as Obj).validationErrors, [{ field: 'category', description: 'must be one of AUTHENTICATION, MARKETING, UTILITY' }]);
});

test('submitTemplate: submits a draft once; a retry after a lost answer reports submitted:false', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST chata/templates/tpl-1:submit'] });
  const created = await stub.activities.createTemplate({ channel: 'CHATA', template: { ...tplInput(), status: 'DRAFT' } });
  assert.equal(created.state, 'DRAFT');
  const ref = { channel: 'CHATA' as const, templateId: created.id };
  await failure(stub.activities.submitTemplate(ref), 'PlatformUnavailableError', false);
  const retried = await stub.activities.submitTemplate(ref);
  assert.deepEqual([retried.submitted, retried.state], [false, 'IN_PROGRESS']);

  const other = await stub.activities.createTemplate({ channel: 'CHATA', template: { ...tplInput('second'), status: 'DRAFT' } });
  const submitted = await stub.activities.submitTemplate({ channel: 'CHATA', templateId: other.id });
  assert.deepEqual([submitted.submitted, submitted.state], [true, 'IN_PROGRESS']);
});

test('submitTemplate: a DELETED template stays a non-retryable template_not_updatable', async (t) => {
  const stub = await startStub(t);
  addTemplate(stub.store.templates.chata, 1, { state: 'DELETED' });
  const details = await failure(stub.activities.submitTemplate({ channel: 'CHATA', templateId: 'old-1' }), 'PlatformValidationError', true);
  assert.equal(details.code, 'template_not_updatable');
});

test('editTemplate: edits and resubmits; a retry after a lost answer is recognised with and without baseVersion', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['PATCH chata/templates/old-1', 'PATCH chata/templates/old-2'] });
  addTemplate(stub.store.templates.chata, 1, { state: 'REJECTED' });
  addTemplate(stub.store.templates.chata, 2, { state: 'REJECTED' });
  const changes = { components: [{ type: 'BODY' as const, text: 'Fixed {{1}}' }], category: 'MARKETING' as const };

  // Without baseVersion: the retry's PATCH is refused, and the template already holds the changes.
  await failure(stub.activities.editTemplate({ channel: 'CHATA', templateId: 'old-1', changes }), 'PlatformUnavailableError', false);
  const retried = await stub.activities.editTemplate({ channel: 'CHATA', templateId: 'old-1', changes });
  assert.deepEqual([retried.edited, retried.state, retried.version], [false, 'IN_PROGRESS', 2]);

  // With baseVersion: the retry reads the template first and sends no second PATCH.
  const input = { channel: 'CHATA' as const, templateId: 'old-2', changes, baseVersion: 1 };
  await failure(stub.activities.editTemplate(input), 'PlatformUnavailableError', false);
  const patchesBefore = stub.writes().length;
  const again = await stub.activities.editTemplate(input);
  assert.deepEqual([again.edited, again.version], [false, 2]);
  assert.equal(stub.writes().length, patchesBefore);
  assert.deepEqual(stub.writes(), ['PATCH chata/templates/old-1', 'PATCH chata/templates/old-1', 'PATCH chata/templates/old-2']);
});

test('editTemplate: edits an APPROVED template (edited:true); other changes to an IN_PROGRESS one fail non-retryably', async (t) => {
  const stub = await startStub(t);
  addTemplate(stub.store.templates.chatb, 1, { state: 'APPROVED' });
  const edited = await stub.activities.editTemplate({ channel: 'CHATB', templateId: 'old-1', changes: { allowCategoryChange: true } });
  assert.deepEqual([edited.edited, edited.state, edited.version, edited.allowCategoryChange], [true, 'IN_PROGRESS', 2, true]);
  const details = await failure(
    stub.activities.editTemplate({ channel: 'CHATB', templateId: 'old-1', changes: { allowCategoryChange: false } }),
    'PlatformValidationError',
    true,
  );
  assert.equal(details.code, 'template_not_updatable');
});

test('getTemplate: reads a template; an unknown one is a non-retryable PlatformNotFoundError', async (t) => {
  const stub = await startStub(t);
  addTemplate(stub.store.templates.chata, 1);
  assert.equal((await stub.activities.getTemplate({ channel: 'CHATA', templateId: 'old-1' })).state, 'APPROVED');
  await failure(stub.activities.getTemplate({ channel: 'CHATA', templateId: 'nope' }), 'PlatformNotFoundError', true);
});
