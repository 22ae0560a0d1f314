// An area's control routes: mounted by the core under /_sandbox/<area>, once per sandbox, with the
// pipeline hooks the core's own /_sandbox routes get; nowhere else.
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createSandbox, type Sandbox, type SandboxArea } from '../../../sandbox/index.js';
import { CONTROL_PREFIX, registerArea } from '../../../sandbox/core/areas.js';
import { SandboxContext } from '../../../sandbox/core/context.js';
import { controlRoutes } from '../../../sandbox/core/control-routes.js';
import { AreaError } from '../../../sandbox/core/errors.js';
import { resolveOptions } from '../../../sandbox/core/options.js';
import { installPipeline } from '../../../sandbox/core/pipeline.js';

const calls = { setup: 0, routes: 0, control: 0 };

// A regional area (three mounts) with control routes over its one per-sandbox state.
const withControl: SandboxArea = {
  name: 'conversation',
  setup() {
    calls.setup++;
    const state = { value: 0 };
    return {
      routes: (app) => {
        calls.routes++;
        app.get('/value', async () => state);
      },
      control: (scope) => {
        calls.control++;
        const app = scope.withTypeProvider<TypeBoxTypeProvider>();
        const Body = Type.Object({ value: Type.Integer() }, { additionalProperties: false });
        app.get('/state', async () => state);
        app.put('/state', { schema: { body: Body } }, async (request) => {
          state.value = request.body.value;
          return state;
        });
        app.get('/refused', async () => {
          throw new AreaError(403, 'Refused on purpose');
        });
      },
    };
  },
};

// An area in the old shape: routes only, hence nothing under /_sandbox/template.
const withoutControl: SandboxArea = {
  name: 'template',
  setup: () => (app) => {
    app.get('/state', async () => ({ area: true }));
  },
};

// Built as createSandbox builds its app, with the test areas instead of the real ones.
async function appWith(areas: SandboxArea[]): Promise<{ app: FastifyInstance; ctx: SandboxContext }> {
  const ctx = new SandboxContext(resolveOptions({}));
  const app = Fastify({ logger: false }) as unknown as FastifyInstance;
  installPipeline(app, ctx);
  await app.register(controlRoutes(ctx), { prefix: CONTROL_PREFIX });
  for (const area of areas) await registerArea(app, ctx, area);
  return { app, ctx };
}

describe('area control routes (test areas)', () => {
  let app: FastifyInstance;
  let ctx: SandboxContext;
  before(async () => {
    ({ app, ctx } = await appWith([withControl, withoutControl]));
  });
  after(() => app.close());

  test('set up once per sandbox: control registered once, routes once per mount', () => {
    assert.deepEqual(calls, { setup: 1, routes: 3, control: 1 });
  });

  test('reachable under /_sandbox/<area>, sharing the state of the area routes', async () => {
    const put = await app.inject({ method: 'PUT', url: '/_sandbox/conversation/state', payload: { value: 5 } });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json(), { value: 5 });
    for (const region of ['us', 'eu', 'br']) {
      const res = await app.inject({ method: 'GET', url: `/conversation/${region}/value` });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { value: 5 });
    }
  });

  test('absent under the area mounts, under another area and for an area without control routes', async () => {
    for (const url of [
      '/conversation/eu/state',
      '/_sandbox/state',
      '/_sandbox/template/state',
      '/_sandbox/conversation/eu/state',
      '/_sandbox/verification/config',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    }
    // The area without control routes is still mounted.
    assert.equal((await app.inject({ method: 'GET', url: '/template/eu/state' })).statusCode, 200);
  });

  test('the pipeline treats them as the core control routes: validation, error shape, no faults, no log', async () => {
    ctx.requests.clear();
    ctx.faults.add({ area: 'conversation', status: 503, count: 10 });

    const bad = await app.inject({ method: 'PUT', url: '/_sandbox/conversation/state', payload: { value: 'x' } });
    const coreBad = await app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { status: 'x', count: 1 } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(coreBad.statusCode, 400, coreBad.body);
    assert.deepEqual(Object.keys(bad.json() as object), Object.keys(coreBad.json() as object));

    const refused = await app.inject({ method: 'GET', url: '/_sandbox/conversation/refused' });
    assert.equal(refused.statusCode, 403);
    assert.deepEqual(refused.json(), { error: { code: 403, message: 'Refused on purpose', status: 'PERMISSION_DENIED', details: [] } });

    // The area's faults hit its mounts, not its control routes.
    assert.equal((await app.inject({ method: 'GET', url: '/_sandbox/conversation/state' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/conversation/eu/value' })).statusCode, 503);
    assert.deepEqual(
      ctx.requests.list({}).map((r) => r.path),
      ['/conversation/eu/value'],
    );
    ctx.faults.clear();
  });
});

describe('area control routes (real sandbox)', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await createSandbox();
  });
  after(() => sb.close());

  test('verification and provisioning controls keep their URLs', async () => {
    for (const url of [
      '/_sandbox/verification/config',
      '/_sandbox/verification/phones/+46700000000',
      '/_sandbox/provisioning/reviewer',
      '/_sandbox/provisioning/events',
      '/_sandbox/provisioning/webhook-faults',
    ]) {
      const res = await sb.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
    for (const url of ['/verification/_sandbox/verification/config', '/provisioning/_sandbox/provisioning/reviewer', '/_sandbox/subprojects/config']) {
      const res = await sb.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    }
  });
});
