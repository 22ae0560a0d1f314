// The onboarding API's contract: a plan that breaks the document is a 400 naming every bad field at once, one
// that breaks the rules between its items a 422 naming each, and neither starts anything; one key is one plan
// (202, then 200 for the same plan, 409 for another); the step operations answer 404 / 400 / 422 / 409 as
// declared, and steps are added to a running onboarding.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { freshMobile, rcsBody, setReviewer, templateBody } from '../../helpers/provisioning.js';

interface ErrorReply {
  error: { code: string; message: string; details?: { field: string; rule: string; message: string }[] };
}
interface StepView {
  name: string;
  kind: string;
  state: string;
  after: string[];
}

const enc = encodeURIComponent;
const template = (step: string, sender: string, name = uniqueName('t').replace(/-/g, '_'), more: Record<string, unknown> = {}) => ({
  step,
  sender,
  ...templateBody(name),
  ...more,
});
const chatb = (step: string, more: Record<string, unknown> = {}) => ({ step, displayName: uniqueName('B'), categoryCode: 'RETAIL', ...more });

describe('onboarding API', () => {
  const h = useHarness({}, async (h) => {
    // CHATB senders stay in review: the onboarding is still running when steps are added to it.
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 600_000 } });
  });

  const post = (url: string, payload: unknown, key?: string) =>
    h.api({ method: 'POST', url, payload: payload as never, ...(key ? { headers: { 'idempotency-key': key } } : {}) });
  const fieldsOf = (body: string) => (JSON.parse(body) as ErrorReply).error.details?.map((d) => d.field) ?? [];
  /** Nothing under the key: no onboarding, no subproject of its plan. */
  async function nothingStarted(key: string, subproject: string) {
    for (const url of [
      `/v1/processes?kind=onboarding&key=${enc(`sandbox-project:${key}`)}`,
      `/v1/processes?kind=subproject&key=${enc(`sandbox-project:${subproject}`)}`,
    ]) {
      const res = await h.api({ method: 'GET', url });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().processes, [], `${url} lists nothing`);
    }
  }

  test('a plan that breaks the document is a 400 naming every bad field, nested ones included, and starts nothing', async () => {
    const key = uniqueName('onb-400');
    const subproject = uniqueName('sp');
    const res = await post('/v1/onboardings', {
      key,
      colour: 'blue',
      subproject: { displayName: subproject },
      webhook: { target: 'ftp://hooks.example.com', secret: 'short' },
      rcsSenders: [{ step: 'r', ...rcsBody(uniqueName('R')), colour: 'red' }],
      chataSenders: [{ step: 'has space', phoneNumber: freshMobile(), displayName: 'x' }],
      templates: [template('t1', 'cb'), template('t2', 'cb', 'Bad Name')],
      chatbSenders: Array.from({ length: 51 }, (_, i) => chatb(`cb${i}`)),
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json<ErrorReply>().error.code, 'validation_failed');
    const fields = fieldsOf(res.body);
    for (const field of [
      'body.colour',
      'body.webhook.target',
      'body.webhook.secret',
      'body.rcsSenders.0.colour',
      'body.chataSenders.0.step',
      'body.templates.1.name',
      'body.chatbSenders',
    ]) {
      assert.ok(fields.includes(field), `${field} named in ${JSON.stringify(fields)}`);
    }
    await nothingStarted(key, subproject);
  });

  test("a plan that breaks the rules between its items is a 422 naming each broken rule's field, and starts nothing", async () => {
    const key = uniqueName('onb-422');
    const subproject = uniqueName('sp');
    const same = uniqueName('same').replace(/-/g, '_');
    const res = await post('/v1/onboardings', {
      key,
      subproject: { displayName: subproject },
      bundle: { displayName: 'Acme', region: 'EU', createSubproject: true },
      rcsSenders: [
        {
          step: 'r1',
          ...rcsBody(uniqueName('R'), {
            banner: { url: 'https://example.com/b.png', width: 1400, height: 448 },
            answers: { brand_description: 'x', message_types: 'x', opt_in: 'x', opt_out: 'x' },
          }),
        },
      ],
      chataSenders: [{ step: 'wa', phoneNumber: freshMobile(), displayName: 'Acme' }],
      chatbSenders: [chatb('wa'), chatb('cb2', { categoryCode: 'TOYS' }), chatb('bundle')],
      templates: [template('t1', 'nobody'), template('t2', 'r1'), template('t3', 'wa', same), template('t4', 'wa', same)],
    });
    assert.equal(res.statusCode, 422, res.body);
    const err = res.json<ErrorReply>().error;
    assert.equal(err.code, 'validation_failed');
    const named = err.details!.map((d) => `${d.field} ${d.rule}`);
    for (const expected of [
      'body.bundle.createSubproject exclusive',
      'body.rcsSenders.0.banner.width banner_size',
      'body.rcsSenders.0.answers.siren required',
      'body.chatbSenders.0.step unique',
      'body.chatbSenders.1.categoryCode enum',
      'body.chatbSenders.2.step reserved',
      'body.templates.0.sender sender_step',
      'body.templates.1.sender sender_step',
      'body.templates.3.name duplicate_process',
    ])
      assert.ok(named.includes(expected), `${expected} in ${JSON.stringify(named)}`);
    await nothingStarted(key, subproject);
  });

  test('a plan with no step is a 422 naming body', async () => {
    const res = await post('/v1/onboardings', { key: uniqueName('onb-empty') });
    assert.equal(res.statusCode, 422, res.body);
    assert.deepEqual(fieldsOf(res.body), ['body']);
  });

  describe('one key, one plan', () => {
    const key = uniqueName('onb');
    const plan = { key, subproject: { displayName: uniqueName('sp') }, chatbSenders: [chatb('cb')] };
    let processId = '';

    test('202 when started, 200 (created: false) for the same plan in another key order, 409 for another plan', async () => {
      const started = await post('/v1/onboardings', plan);
      assert.equal(started.statusCode, 202, started.body);
      processId = started.json().processId;
      assert.equal(processId, `onboarding:sandbox-project:${key}`);
      assert.deepEqual(started.json(), { processId, kind: 'onboarding', created: true, links: { self: `/v1/onboardings/${enc(processId)}` } });

      const again = await post('/v1/onboardings', {
        chatbSenders: plan.chatbSenders.map((s) => ({ categoryCode: s.categoryCode, displayName: s.displayName, step: s.step })),
        subproject: plan.subproject,
        key,
      });
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual(again.json(), { processId, kind: 'onboarding', created: false, links: { self: `/v1/onboardings/${enc(processId)}` } });

      const other = await post('/v1/onboardings', { ...plan, chatbSenders: [chatb('cb')] });
      assert.equal(other.statusCode, 409, other.body);
      const err = other.json<ErrorReply>().error;
      assert.equal(err.code, 'key_in_use');
      assert.match(err.message, /another plan/);
      assert.deepEqual(
        err.details?.map((d) => d.field),
        ['body.key'],
      );
    });

    test("read by its route (its steps in details), listed by kind; another kind's ID is a 404", async () => {
      const res = await h.api({ method: 'GET', url: `/v1/onboardings/${enc(processId)}` });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().kind, 'onboarding');
      assert.deepEqual(
        (res.json().details.steps as StepView[]).map((s) => s.name),
        ['subproject', 'cb'],
      );
      const other = await h.api({ method: 'GET', url: `/v1/onboardings/${enc('subproject:sandbox-project:x')}` });
      assert.equal(other.statusCode, 404);
      const deadline = Date.now() + 10_000;
      let listed: { processId: string }[] = [];
      while (Date.now() < deadline && !listed.some((p) => p.processId === processId)) {
        listed = (await h.api({ method: 'GET', url: '/v1/onboardings' })).json().processes;
        if (!listed.some((p) => p.processId === processId)) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(
        listed.some((p) => p.processId === processId),
        'listed',
      );
      assert.equal((await h.api({ method: 'GET', url: '/v1/processes?kind=onboarding' })).statusCode, 200);
    });

    test('steps are added to the running onboarding, checked against the steps it has; a repeat with the same key answers the same', async () => {
      const url = `/v1/onboardings/${enc(processId)}/steps`;
      const clash = await post(url, { chatbSenders: [chatb('subproject'), chatb('cb')] });
      assert.equal(clash.statusCode, 422, clash.body);
      assert.deepEqual(fieldsOf(clash.body), ['body.chatbSenders.0.step', 'body.chatbSenders.1.step']);

      const body = { templates: [template('t1', 'cb')] };
      const added = await post(url, body, 'add-t1');
      assert.equal(added.statusCode, 200, added.body);
      assert.equal(added.json().accepted, true);
      const repeated = await post(url, body, 'add-t1');
      assert.equal(repeated.statusCode, 200, repeated.body);
      assert.deepEqual(repeated.json(), added.json());
      const reused = await post(url, body, 'add-t1-again');
      assert.equal(reused.statusCode, 409, `another operation reusing the name is refused by the process: ${reused.body}`);

      const steps = (await h.api({ method: 'GET', url: `/v1/onboardings/${enc(processId)}` })).json().details.steps as StepView[];
      const t1 = steps.find((s) => s.name === 't1');
      assert.equal(t1?.kind, 'chatb-template', "the template takes its sender's channel");
      assert.deepEqual(t1?.after, ['cb']);
    });

    test('retry, skip and cancel: 400 for a bad step name, 422 for a bad body, 409 when refused', async () => {
      const base = `/v1/onboardings/${enc(processId)}`;
      const badStep = await post(`${base}/steps/${enc('has space')}/skip`, {});
      assert.equal(badStep.statusCode, 400, badStep.body);
      assert.deepEqual(fieldsOf(badStep.body), ['path.step']);
      const both = await post(`${base}/steps/t1/retry`, {
        resubmit: { components: [{ type: 'FOOTER', text: 'bye' }] },
        relaunch: { contact: { email: 'a@example.com', phoneNumber: '+33612345678' } },
      });
      assert.equal(both.statusCode, 422, both.body);
      assert.deepEqual(fieldsOf(both.body).sort(), ['body.relaunch', 'body.relaunch.contact', 'body.resubmit.components']);
      const notFailed = await post(`${base}/steps/cb/retry`, {});
      assert.equal(notFailed.statusCode, 409, notFailed.body);
      const cancelled = await post(`${base}/cancel`, { reason: 'test over' }, 'cancel-1');
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.equal(cancelled.json().accepted, true);
      assert.equal((await post(`${base}/cancel`, {}, 'cancel-2')).statusCode, 409, 'a second cancel is refused');
    });
  });

  test('an unknown onboarding, or an ID of another kind, is a 404 on every route', async () => {
    for (const id of ['onboarding:sandbox-project:nothing-here', 'subproject:sandbox-project:x']) {
      const base = `/v1/onboardings/${enc(id)}`;
      assert.equal((await h.api({ method: 'GET', url: base })).statusCode, 404, `GET ${id}`);
      for (const path of ['/steps/a/retry', '/steps/a/skip', '/cancel']) assert.equal((await post(`${base}${path}`, {})).statusCode, 404, `${path} ${id}`);
      assert.equal((await post(`${base}/steps`, { chatbSenders: [chatb('x')] })).statusCode, 404, `steps ${id}`);
    }
  });

  test('the OpenAPI document describes the onboarding routes under their tag', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const start = doc.paths['/v1/onboardings'].post;
    assert.deepEqual(start.tags, ['onboardings']);
    for (const status of ['200', '202', '400', '409', '422']) assert.ok(start.responses[status], `POST /v1/onboardings declares ${status}`);
    for (const path of [
      '/v1/onboardings/{processId}/steps',
      '/v1/onboardings/{processId}/steps/{step}/retry',
      '/v1/onboardings/{processId}/steps/{step}/skip',
      '/v1/onboardings/{processId}/cancel',
    ]) {
      for (const status of ['200', '400', '404', '409', '422']) assert.ok(doc.paths[path].post.responses[status], `${path} declares ${status}`);
    }
    assert.ok(doc.paths['/v1/onboardings/{processId}'].get);
  });
});
