// The development codec listener (api/dev-codec.ts): what lets it decode without an API key, and what it refuses.
// It binds to loopback only, decodes only, answers only the web UI's origin (or no origin: the CLI) and only
// requests addressed to loopback. The web UI in a browser against `npm start`: test/e2e/web-ui-codec.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildDevCodecApp, isLoopbackHost, startDevCodecListener, type DevCodecListener } from '../../api/dev-codec.js';
import { errorHandlerPlugin } from '../../api/plugins/error-handler.js';
import codecRoutes from '../../api/routes/codec.js';
import { AesGcmPayloadCodec, generateCodecKey, parseCodecKeys } from '../../common/codec.js';
import { createLogger } from '../../common/logger.js';

const UI = 'http://127.0.0.1:8233';
const codec = new AesGcmPayloadCodec(parseCodecKeys(generateCodecKey('dev'), 'test'));
const logger = createLogger({ name: 'test', level: 'silent' });
const b64 = (s: string) => Buffer.from(s).toString('base64');
const plain = { metadata: { encoding: b64('json/plain') }, data: b64('{"identity":"+46700000001"}') };

async function encrypted() {
  const [p] = await codec.encode([{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"identity":"+46700000001"}') }]);
  return {
    metadata: Object.fromEntries(Object.entries(p!.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p!.data!).toString('base64'),
  };
}

describe('the development codec listener', () => {
  let app: FastifyInstance;
  let listener: DevCodecListener;
  before(async () => {
    app = await buildDevCodecApp({ codec, uiOrigins: [UI, 'http://localhost:8233'], logger });
    listener = await startDevCodecListener({ codec, uiOrigins: [UI], logger });
  });
  after(async () => {
    await app?.close();
    await listener?.close();
  });

  test('binds to loopback only', async () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) assert.ok(isLoopbackHost(host), host);
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '', '127.0.0.1.example.com']) assert.ok(!isLoopbackHost(host), host);
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      await assert.rejects(startDevCodecListener({ codec, uiOrigins: [UI], logger, host }), /binds to loopback only/, host);
    }
    assert.match(listener.endpoint, /^http:\/\/127\.0\.0\.1:\d+\/codec$/);
  });

  test('decodes without an API key, for the CLI (no Origin) and the web UI (its Origin, with CORS)', async () => {
    const body = { payloads: [await encrypted()] };
    const cli = await fetch(`${listener.endpoint}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(cli.status, 200);
    assert.deepEqual(await cli.json(), { payloads: [plain] });
    const ui = await fetch(`${listener.endpoint}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: UI, 'x-namespace': 'default' },
      body: JSON.stringify(body),
    });
    assert.equal(ui.status, 200);
    assert.equal(ui.headers.get('access-control-allow-origin'), UI);
    assert.deepEqual(await ui.json(), { payloads: [plain] });
  });

  test("answers the web UI's preflight", async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/codec/decode',
      headers: { host: '127.0.0.1:8234', origin: UI, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], UI);
    assert.equal(res.headers['access-control-allow-methods'], 'POST');
    assert.match(String(res.headers['access-control-allow-headers']), /x-namespace/);
  });

  test('does not encode', async () => {
    const res = await fetch(`${listener.endpoint}/encode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: UI },
      body: JSON.stringify({ payloads: [plain] }),
    });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/codec/encode',
      headers: { host: '127.0.0.1:8234', origin: UI, 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined, 'no browser page may call /encode');
  });

  test('refuses pages of other sites, also when a rebound host name makes them same-origin', async () => {
    const body = { payloads: [await encrypted()] };
    const other = await app.inject({
      method: 'POST',
      url: '/codec/decode',
      headers: { host: '127.0.0.1:8234', origin: 'https://evil.example' },
      payload: body,
    });
    assert.equal(other.statusCode, 403);
    assert.equal(other.json().error.code, 'origin_not_allowed');
    assert.doesNotMatch(other.body, /46700000001/);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/codec/decode',
      headers: { host: '127.0.0.1:8234', origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.statusCode, 403);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const rebound = await app.inject({ method: 'POST', url: '/codec/decode', headers: { host: 'evil.example:8234' }, payload: body });
    assert.equal(rebound.statusCode, 403);
    assert.equal(rebound.json().error.code, 'host_not_allowed');
    for (const host of ['localhost:8234', '[::1]:8234', '127.0.0.1']) {
      const ok = await app.inject({ method: 'POST', url: '/codec/decode', headers: { host }, payload: body });
      assert.equal(ok.statusCode, 200, host);
    }
  });

  test("the API's own codec routes still encode and decode (the default)", async () => {
    const api = Fastify();
    await api.register(errorHandlerPlugin);
    await api.register(codecRoutes, { codec, allowedOrigins: [] });
    try {
      const enc = await api.inject({ method: 'POST', url: '/codec/encode', payload: { payloads: [plain] } });
      assert.equal(enc.statusCode, 200);
      const dec = await api.inject({ method: 'POST', url: '/codec/decode', payload: enc.json() });
      assert.deepEqual(dec.json(), { payloads: [plain] });
    } finally {
      await api.close();
    }
  });
});
