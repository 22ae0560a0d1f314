// Access: scopes (403 naming the scope), per-key rate limits (429 without starving other keys), body limits
// (413), key rotation by re-reading the keys file, and the key ID, never the key, on every log line.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@temporalio/client';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../api/app.js';
import { reloadApiKeys } from '../../api/key-reload.js';
import { keyIdOf } from '../../api/plugins/actor.js';
import { KeyRing } from '../../api/plugins/key-ring.js';
import { requiredScope } from '../../api/plugins/scopes.js';
import { apiClientInterceptors } from '../../api/temporal-actor.js';
import { AesGcmPayloadCodec, generateCodecKey } from '../../common/codec.js';
import { loadConfig } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { connectClient } from '../../common/temporal.js';
import { entryArgs } from '../helpers/compiled-tree.js';

const ADMIN = 'admin-key-for-access-tests-0001';
const OPERATOR = 'operator-key-for-access-tests-01';
const READER = 'reader-key-for-access-tests-0001';
const FLOODER = 'flooder-key-for-access-tests-001';
const NEWCOMER = 'newcomer-key-for-access-tests-01';
const ALL_KEYS = [ADMIN, OPERATOR, READER, FLOODER, NEWCOMER];
const CODEC_KEYS = generateCodecKey('access');

/** Every log line the app writes, parsed. */
function logCapture() {
  const lines: Array<Record<string, unknown>> = [];
  let raw = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw += chunk.toString();
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ name: 'access-test', level: 'info', destination: stream }), lines, raw: () => raw };
}

describe('API access', () => {
  let dir: string;
  let keysFile: string;
  let app: FastifyInstance;
  let client: Client;
  let keys: KeyRing;
  const logs = logCapture();
  const as = (key: string, o: InjectOptions) => app.inject({ ...o, headers: { authorization: `Bearer ${key}`, ...o.headers } });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'relayflow-access-'));
    keysFile = join(dir, 'api-keys');
    await writeFile(keysFile, `# scoped keys\n${OPERATOR} operator\n${READER}\tread-only\n${FLOODER} read-only 5\n`);
    const config = loadConfig({
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      RELAYFLOW_API_KEYS: ADMIN,
      RELAYFLOW_API_KEYS_FILE: keysFile,
      RELAYFLOW_RATE_LIMIT_PER_MINUTE: '40',
      RELAYFLOW_CODEC_KEYS: CODEC_KEYS,
      // Never called: nothing here reaches the platform.
      PLATFORM_SANDBOX_URL: 'http://127.0.0.1:9',
    });
    client = await connectClient(
      config,
      apiClientInterceptors(() => client),
    );
    keys = new KeyRing(config.api.keys);
    app = await buildApp({ config, client, codec: new AesGcmPayloadCodec(config.codecKeys), logger: logs.logger, keys });
  });
  after(async () => {
    await app?.close();
    await client?.connection.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the scope rule: reads are read-only, changes operator, configuration admin; a route can override it', () => {
    assert.equal(requiredScope('GET', '/v1/voice/incoming-rules'), 'read-only');
    assert.equal(requiredScope('POST', '/v1/subprojects'), 'operator');
    assert.equal(requiredScope('PATCH', '/v1/voice/calls/:callId'), 'operator');
    assert.equal(requiredScope('POST', '/codec/decode'), 'admin');
    assert.equal(requiredScope('PUT', '/v1/voice/callback-urls'), 'admin');
    assert.equal(requiredScope('DELETE', '/v1/voice/incoming-rules/:number'), 'admin');
    assert.equal(requiredScope('POST', '/v1/voice/numbers/assign'), 'admin');
    assert.equal(requiredScope('POST', '/v1/subprojects', { scope: 'admin' }), 'admin');
  });

  test('a read-only key reads (200) and is refused a change with 403 naming the scope', async () => {
    assert.equal((await as(READER, { method: 'GET', url: '/v1/processes?kind=subproject' })).statusCode, 200);
    const res = await as(READER, { method: 'POST', url: '/v1/subprojects', payload: { displayName: 'never-started' } });
    assert.equal(res.statusCode, 403, res.body);
    const body = res.json();
    assert.equal(body.error.code, 'forbidden');
    assert.match(body.error.message, /needs the operator scope; API key [0-9a-f]{12} has read-only/);
    assert.deepEqual(
      body.error.details.map((d: { field: string; rule: string }) => [d.field, d.rule]),
      [['header.authorization', 'scope']],
    );
    assert.ok(body.requestId);
  });

  test('an operator changes processes but is refused configuration (403 naming admin); admin passes', async () => {
    // An empty body: a 400 from validation shows the key got past the scope check without starting anything.
    assert.equal((await as(OPERATOR, { method: 'POST', url: '/v1/subprojects', payload: {} })).statusCode, 400);
    for (const [method, url, payload] of [
      ['POST', '/v1/voice/numbers/assign', {}],
      ['PUT', '/v1/voice/incoming-rules/default', {}],
      ['POST', '/codec/decode', { payloads: [] }],
    ] as const) {
      const refused = await as(OPERATOR, { method, url, payload });
      assert.equal(refused.statusCode, 403, `${method} ${url}: ${refused.body}`);
      assert.match(refused.json().error.message, /needs the admin scope/);
      assert.notEqual((await as(ADMIN, { method, url, payload })).statusCode, 403, `${method} ${url} as admin`);
    }
    const encoded = await as(ADMIN, { method: 'POST', url: '/codec/encode', payload: { payloads: [] } });
    assert.equal(encoded.statusCode, 200, encoded.body);
  });

  test('the OpenAPI document declares 403 where a scope can refuse and 429 where the limit applies', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    const responses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
    assert.ok(responses('/v1/subprojects', 'post').includes('403'));
    assert.ok(responses('/v1/voice/numbers/assign', 'post').includes('403'));
    assert.ok(responses('/v1/subprojects', 'post').includes('429'));
    assert.ok(!responses('/v1/processes', 'get').includes('403'), 'every key may read');
    assert.ok(responses('/v1/processes', 'get').includes('429'));
    assert.ok(!responses('/healthz', 'get').includes('429'), 'health checks are never limited');
  });

  test('a body over the route limit is a 413 naming the limit; a route with a larger limit takes it', async () => {
    const big = `{"displayName":"${'x'.repeat(1024 * 1024)}"}`;
    const res = await as(OPERATOR, { method: 'POST', url: '/v1/subprojects', payload: big, headers: { 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error.code, 'payload_too_large');
    assert.match(res.json().error.message, /limit of 1048576 bytes/);
    // A 1 MiB file (1.33 MiB as base64): over the default, within the upload route's 2 MiB (no such process: 404).
    const upload = {
      attachmentDefinitionId: 'att-au-loa',
      fileName: 'loa.pdf',
      mimeType: 'application/pdf',
      content: Buffer.alloc(1024 * 1024, 1).toString('base64'),
    };
    const uploaded = await as(OPERATOR, { method: 'POST', url: '/v1/senderid/registrations/senderid-registration%3Anope/attachments', payload: upload });
    assert.equal(uploaded.statusCode, 404, uploaded.body);
  });

  test('a flood from one key gets 429 with Retry-After while other keys go on', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await as(FLOODER, { method: 'GET', url: '/v1/processes?kind=subproject' })).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429], 'its own limit: 5 a minute');
    const refused = await as(FLOODER, { method: 'GET', url: '/v1/processes?kind=subproject' });
    assert.equal(refused.json().error.code, 'rate_limited');
    assert.match(refused.json().error.message, new RegExp(`API key ${keyIdOf(FLOODER)} sent more than 5 requests this minute`));
    assert.ok(Number(refused.headers['retry-after']) >= 1, `Retry-After: ${refused.headers['retry-after']}`);
    assert.equal((await as(READER, { method: 'GET', url: '/v1/processes?kind=subproject' })).statusCode, 200, 'another key is not starved');
    assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  });

  test('requests without a valid key are limited per client address (the default limit)', async () => {
    const guess = (remoteAddress: string) =>
      app.inject({ method: 'GET', url: '/v1/processes', remoteAddress, headers: { authorization: 'Bearer not-a-key-of-ours-00000000000' } });
    for (let i = 0; i < 40; i++) assert.equal((await guess('10.0.0.9')).statusCode, 401);
    assert.equal((await guess('10.0.0.9')).statusCode, 429);
    assert.equal((await guess('10.0.0.10')).statusCode, 401, 'another address has its own count');
  });

  test('a reload swaps the keys: the new key passes, the removed one gets 401; a bad file keeps the old keys', async () => {
    assert.equal((await as(NEWCOMER, { method: 'GET', url: '/v1/processes?kind=subproject' })).statusCode, 401);
    await writeFile(keysFile, `${NEWCOMER} operator\n${READER} read-only\n`);
    assert.equal(reloadApiKeys(keys, { envKeys: [ADMIN], file: keysFile }, logs.logger), true);
    assert.equal((await as(NEWCOMER, { method: 'GET', url: '/v1/processes?kind=subproject' })).statusCode, 200);
    assert.equal((await as(OPERATOR, { method: 'GET', url: '/v1/processes?kind=subproject' })).statusCode, 401, 'removed');
    assert.equal((await as(ADMIN, { method: 'GET', url: '/v1/processes?kind=subproject' })).statusCode, 200, 'RELAYFLOW_API_KEYS stays');
    const reloaded = logs.lines.find((l) => l.msg === 'API keys reloaded')!;
    assert.deepEqual(reloaded.keysByScope, { 'read-only': 1, operator: 1, admin: 1 });
    assert.deepEqual(reloaded.addedKeyIds, [keyIdOf(NEWCOMER)]);
    assert.deepEqual(new Set(reloaded.removedKeyIds as string[]), new Set([keyIdOf(OPERATOR), keyIdOf(FLOODER)]));

    await writeFile(keysFile, `${OPERATOR} operator\n${FLOODER} superuser\n`);
    assert.equal(reloadApiKeys(keys, { envKeys: [ADMIN], file: keysFile }, logs.logger), false);
    const refused = logs.lines.find((l) => l.msg === 'API keys not reloaded: keeping the previous keys')!;
    assert.match(String(refused.reason), new RegExp(`${keysFile} line 2: unknown scope "superuser"`));
    assert.equal((await as(NEWCOMER, { method: 'GET', url: '/v1/processes?kind=subproject' })).statusCode, 200, 'old keys kept');
    assert.equal((await as(OPERATOR, { method: 'GET', url: '/v1/processes?kind=subproject' })).statusCode, 401);
  });

  test('every log line of a request carries its key ID, and no line carries a key', () => {
    const ofRequests = logs.lines.filter((l) => l.reqId);
    const keyed = ofRequests.filter((l) => l.keyId === keyIdOf(READER));
    // One line per request, written with its answer (api/plugins/request-log.ts).
    const lines = keyed.filter((l) => l.msg === 'request');
    assert.ok(lines.length > 0 && lines.every((l) => l.method && l.url && typeof l.status === 'number' && typeof l.ms === 'number'), 'a request line');
    assert.equal(new Set(lines.map((l) => l.reqId)).size, lines.length, 'one line per request');
    // Every line of a request with a recognised key has it (the reader's requests all had one).
    const readerRequests = new Set(keyed.map((l) => l.reqId));
    assert.ok(ofRequests.filter((l) => readerRequests.has(l.reqId)).every((l) => l.keyId === keyIdOf(READER)));
    for (const key of ALL_KEYS) assert.ok(!logs.raw().includes(key), 'a key in the log');
  });
});

describe('SIGHUP on the API process', () => {
  test('re-reads the keys file: a key added to it works without a restart', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relayflow-sighup-'));
    const file = join(dir, 'api-keys');
    await writeFile(file, `${READER} read-only\n`);
    const child = spawn(process.execPath, entryArgs('api/main.ts'), {
      env: {
        ...process.env,
        RELAYFLOW_API_KEYS: '',
        RELAYFLOW_API_KEYS_FILE: file,
        RELAYFLOW_API_PORT: '0',
        RELAYFLOW_CODEC_KEYS: CODEC_KEYS,
        PLATFORM_SANDBOX_URL: 'http://127.0.0.1:9',
        RELAYFLOW_DATABASE_URL: '',
        RELAYFLOW_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const waitFor = async (pattern: RegExp) => {
      for (let i = 0; i < 300 && !pattern.test(out); i++) await new Promise((r) => setTimeout(r, 100));
      const m = pattern.exec(out);
      if (!m) throw new Error(`no ${pattern} in the API's output:\n${out}`);
      return m;
    };
    try {
      const [, url] = await waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
      const get = (key: string) => fetch(`${url}/v1/processes?kind=subproject`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
      assert.equal(await get(READER), 200);
      assert.equal(await get(NEWCOMER), 401);
      await writeFile(file, `${NEWCOMER} operator\n`);
      child.kill('SIGHUP');
      await waitFor(/API keys reloaded/);
      assert.equal(await get(NEWCOMER), 200);
      assert.equal(await get(READER), 401);
      assert.equal(child.exitCode, null, 'SIGHUP does not end the API');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
