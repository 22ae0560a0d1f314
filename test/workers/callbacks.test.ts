// Callback wiring at worker start-up (workers/callbacks.ts) against the sandbox: only an explicit
// RELAYFLOW_PUBLIC_URL counts, transient platform errors are retried with a log line each, permanent ones
// end it with an error line, a stopping worker ends the retries, and nothing is registered twice.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, test } from 'node:test';
import { loadConfig, type Config } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { PROVISIONING_WEBHOOK_PATH, VERIFICATION_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { createPlatformClients } from '../../platform/index.js';
import { createSandbox, type Sandbox } from '../../sandbox/index.js';
import { explicitPublicUrl, wireCallbacks } from '../../workers/callbacks.js';

const PUBLIC_URL = 'https://relayflow.example.test';
const base = { RELAYFLOW_API_KEYS: 'k'.repeat(24), RELAYFLOW_CODEC_KEYS: `k1:${Buffer.alloc(32).toString('base64')}` };

function capture() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { logger: createLogger({ name: 'test', level: 'info', destination: stream }), lines };
}

describe('explicitPublicUrl', () => {
  test("the default public URL (the API's own address) does not count; an explicit one does, normalised", () => {
    const dflt = loadConfig({ ...base, PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010' });
    assert.equal(dflt.api.publicUrl, 'http://127.0.0.1:3000', 'config always has one');
    assert.equal(explicitPublicUrl(dflt), undefined);
    assert.equal(explicitPublicUrl(loadConfig({ ...base, PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010', RELAYFLOW_PUBLIC_URL: '  ' })), undefined);
    const env = { ...base, PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010', RELAYFLOW_PUBLIC_URL: `${PUBLIC_URL}/` };
    assert.equal(explicitPublicUrl(loadConfig(env)), PUBLIC_URL);
  });

  test('the sandbox base URL comes from the config in sandbox mode; none on the real platform', () => {
    const c = loadConfig({ ...base, PLATFORM_SANDBOX_URL: 'http://sandbox:4010/' });
    assert.equal(c.platform.sandboxUrl, 'http://sandbox:4010');
  });
});

describe('wireCallbacks against the sandbox', () => {
  let sb: Sandbox;
  let config: Config;
  const target = `${PUBLIC_URL}${PROVISIONING_WEBHOOK_PATH}`;
  const provisioning = () => createPlatformClients(config.platform).provisioning;
  const fault = async (f: Record<string, unknown>) => {
    const res = await sb.app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { area: 'provisioning', ...f } });
    assert.equal(res.statusCode, 200, res.body);
  };
  const webhookPosts = async () => {
    const res = await sb.app.inject({ method: 'GET', url: '/_sandbox/requests?area=provisioning&method=POST' });
    return (res.json() as { requests: { path: string }[] }).requests.filter((r) => r.path.endsWith('/webhooks')).length;
  };
  const callbackUrl = async () =>
    ((await sb.app.inject({ method: 'GET', url: '/_sandbox/verification/config' })).json().callbackUrl as string | null) ?? undefined;

  before(async () => {
    sb = await createSandbox();
    await sb.listen();
    config = loadConfig({ ...base, PLATFORM_SANDBOX_URL: sb.url, RELAYFLOW_PUBLIC_URL: PUBLIC_URL });
  });
  after(async () => sb.close());
  beforeEach(async () => {
    assert.equal((await sb.app.inject({ method: 'POST', url: '/_sandbox/reset' })).statusCode, 200);
  });

  test('registers the webhook and the sandbox callback URL once; a second run finds them', async () => {
    const { logger, lines } = capture();
    const first = await wireCallbacks({ config, publicUrl: PUBLIC_URL, provisioning: provisioning(), logger, retryDelaysMs: [10] });
    assert.equal(first.provisioningWebhook.status, 'registered');
    assert.match(first.provisioningWebhook.detail, /created/);
    assert.equal(first.verificationCallback.status, 'registered');
    assert.equal(await callbackUrl(), `${PUBLIC_URL}${VERIFICATION_CALLBACK_PATH}`);
    const second = await wireCallbacks({ config, publicUrl: PUBLIC_URL, provisioning: provisioning(), logger, retryDelaysMs: [10] });
    assert.match(second.provisioningWebhook.detail, /already registered/);
    const hooks = await provisioning().webhooks.list();
    assert.deepEqual(
      hooks.map((w) => w.target),
      [target],
    );
    assert.equal(await webhookPosts(), 1, 'created once');
    assert.ok(lines.some((l) => l.msg === 'callback wiring done'));
  });

  test('transient platform errors are retried, each with a warning, until it works', async () => {
    await fault({ method: 'GET', pathContains: '/webhooks', status: 503, count: 2 });
    const { logger, lines } = capture();
    const out = await wireCallbacks({ config, publicUrl: PUBLIC_URL, provisioning: provisioning(), logger, retryDelaysMs: [10] });
    assert.equal(out.provisioningWebhook.status, 'registered');
    const retries = lines.filter((l) => /provisioning webhook not registered yet; retrying/.test(l.msg));
    assert.equal(retries.length, 2);
    assert.ok(
      retries.every((l) => l.level === 40),
      'warnings',
    );
    assert.deepEqual(
      (await provisioning().webhooks.list()).map((w) => w.target),
      [target],
    );
  });

  test('a permanent refusal is not retried: one error line, status failed', async () => {
    await fault({ method: 'POST', pathContains: '/webhooks', status: 400, count: 1 });
    const { logger, lines } = capture();
    const out = await wireCallbacks({ config, publicUrl: PUBLIC_URL, provisioning: provisioning(), logger, retryDelaysMs: [10] });
    assert.equal(out.provisioningWebhook.status, 'failed');
    assert.equal(await webhookPosts(), 1, 'asked once');
    assert.ok(lines.some((l) => l.level === 50 && /provisioning webhook not registered; fix the cause/.test(l.msg)));
    assert.equal(out.verificationCallback.status, 'registered', 'the other callback is wired all the same');
  });

  test('a stopping worker ends the retries', async () => {
    await fault({ method: 'GET', pathContains: '/webhooks', status: 503, count: 1_000 });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const started = Date.now();
    const out = await wireCallbacks({
      config,
      publicUrl: PUBLIC_URL,
      provisioning: provisioning(),
      logger: capture().logger,
      retryDelaysMs: [60_000],
      signal: stop.signal,
    });
    assert.equal(out.provisioningWebhook.status, 'failed');
    assert.match(out.provisioningWebhook.detail, /before the worker stopped/);
    assert.ok(Date.now() - started < 5_000, 'did not wait for the next retry');
  });

  test('no webhook secret: nothing registered, an error line; the real platform: the dashboard URL is logged, not set', async () => {
    const { logger, lines } = capture();
    const out = await wireCallbacks({
      config: { api: { ...config.api, provisioningWebhookSecret: undefined }, platform: { ...config.platform, mode: 'platform', sandboxUrl: undefined } },
      publicUrl: PUBLIC_URL,
      provisioning: provisioning(),
      logger,
    });
    assert.equal(out.provisioningWebhook.status, 'skipped');
    assert.equal(out.verificationCallback.status, 'skipped');
    assert.match(out.verificationCallback.detail, /dashboard.*https:\/\/relayflow\.example\.test\/callbacks\/verification/);
    assert.ok(lines.some((l) => l.level === 50 && /RELAYFLOW_PROVISIONING_WEBHOOK_SECRET is not set/.test(l.msg)));
    assert.deepEqual(await provisioning().webhooks.list(), []);
    assert.equal(await callbackUrl(), undefined);
  });
});
