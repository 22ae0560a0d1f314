// The API logs a request in one line (api/plugins/request-log.ts): method, URL, status, milliseconds, request ID and
// key ID, written with the answer; the URL without the values of sensitive query or path parameters (an identity,
// the MMS postback token) and with phone numbers masked. Built as production builds it, with no Temporal behind it.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../api/app.js';
import { loggedUrl } from '../../api/plugins/request-log.js';
import { keyIdOf } from '../../api/plugins/key-ring.js';
import { AesGcmPayloadCodec, generateCodecKey } from '../../common/codec.js';
import { loadConfig } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';

const KEY = 'request-log-test-key-000000000001';
const POSTBACK_TOKEN = 'postback-token-not-for-logs-0001';

describe('request log', () => {
  const lines: Array<Record<string, unknown>> = [];
  let raw = '';
  let app: FastifyInstance;
  const requestLines = () => lines.filter((l) => l.msg === 'request');

  before(async () => {
    const stream = new Writable({
      write(chunk, _enc, done) {
        raw += String(chunk);
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const config = loadConfig({
      RELAYFLOW_API_KEYS: KEY,
      RELAYFLOW_CODEC_KEYS: generateCodecKey('request-log'),
      RELAYFLOW_MMS_POSTBACK_TOKEN: POSTBACK_TOKEN,
      PLATFORM_SANDBOX_URL: 'http://127.0.0.1:9',
    });
    app = await buildApp({
      config,
      client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:9' }) }),
      codec: new AesGcmPayloadCodec(config.codecKeys),
      logger: createLogger({ name: 'request-log-test', level: 'info', destination: stream }),
    });
  });
  after(async () => {
    await app?.close();
  });

  test('one line per request, with its answer and its IDs', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/keys/me', headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(res.statusCode, 200);
    const mine = lines.filter((l) => l.reqId === res.headers['x-request-id']);
    assert.equal(mine.length, 1, `one line, not Fastify's two: ${JSON.stringify(mine)}`);
    const [line] = mine;
    assert.deepEqual(
      { msg: line!.msg, method: line!.method, url: line!.url, status: line!.status },
      { msg: 'request', method: 'GET', url: '/v1/keys/me', status: 200 },
    );
    assert.equal(typeof line!.ms, 'number');
    assert.equal(line!.keyId, keyIdOf(KEY));
  });

  test('sensitive query values are redacted, phone numbers masked, the rest kept', async () => {
    await app.inject({
      method: 'GET',
      url: '/v1/keys/me?identity=%2B46700000001&token=abc&q=call+%2B46700000002&kind=subproject',
      headers: { authorization: `Bearer ${KEY}` },
    });
    const url = String(requestLines().at(-1)!.url);
    assert.equal(url, '/v1/keys/me?identity=[redacted]&token=[redacted]&q=call +***02&kind=subproject');
  });

  test("the MMS postback's token never reaches the log, right or wrong", async () => {
    for (const token of [POSTBACK_TOKEN, 'a-wrong-token-0000000000000000001']) {
      await app.inject({ method: 'POST', url: `/callbacks/mms/${token}`, payload: {} });
      assert.equal(requestLines().at(-1)!.url, '/callbacks/mms/[redacted]');
    }
    assert.ok(!raw.includes(POSTBACK_TOKEN) && !raw.includes('a-wrong-token'), 'a postback token in the log');
    assert.ok(!raw.includes('46700000001'), 'a phone number in the log');
  });

  test('a malformed escape is logged as it came, still masked', () => {
    assert.equal(loggedUrl({ url: '/v1/processes/%E0%A4%A?identity=x', params: {} }), '/v1/processes/%E0%A4%A?identity=[redacted]');
    assert.equal(loggedUrl({ url: '/v1/voice/incoming-rules/%2B4685000101', params: {} }), '/v1/voice/incoming-rules/+***01');
    assert.equal(loggedUrl({ url: '/v1/things/s3cret/x', params: { secret: 's3cret' } }), '/v1/things/[redacted]/x');
  });
});
