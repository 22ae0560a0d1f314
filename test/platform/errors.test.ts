import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { PlatformHttp } from '../../platform/http.js';
import {
  PlatformAuthError,
  PlatformConflictError,
  PlatformError,
  PlatformNotFoundError,
  PlatformRateLimitError,
  PlatformUnavailableError,
  PlatformValidationError,
  parseErrorBody,
  parseRetryAfter,
  platformErrorFromResponse,
  type PlatformInterface,
} from '../../platform/errors.js';
import { closedPort, listenStub } from '../helpers/stub-server.js';

/** Stub that answers every request with the given status, headers and body. */
const startStub = (t: TestContext, reply: (res: ServerResponse) => void) => listenStub(t, (_req, res) => reply(res));

const conversationError = (code: number, status: string) => ({ error: { code, message: `${status} happened`, status, details: [{ '@type': 'x' }] } });

test('each error status maps to its class and retryable flag', async (t) => {
  const cases: Array<[number, new (...a: never[]) => PlatformError, boolean]> = [
    [400, PlatformValidationError, false],
    [401, PlatformAuthError, false],
    [403, PlatformAuthError, false],
    [404, PlatformNotFoundError, false],
    [409, PlatformConflictError, false],
    [429, PlatformRateLimitError, true],
    [500, PlatformUnavailableError, true],
    [501, PlatformUnavailableError, true],
    [503, PlatformUnavailableError, true],
  ];
  for (const [status, cls, retryable] of cases) {
    const url = await startStub(t, (res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(conversationError(status, `S${status}`)));
    });
    const http = new PlatformHttp({ timeoutMs: 2000 });
    await assert.rejects(http.request({ area: 'conversation', method: 'GET', url }), (err: unknown) => {
      assert.ok(err instanceof cls, `${status} → ${cls.name}`);
      const e = err as PlatformError;
      assert.equal(e.name, cls.name);
      assert.equal(e.retryable, retryable, `${status} retryable`);
      assert.equal(e.httpStatus, status);
      assert.equal(e.code, `S${status}`);
      assert.equal(e.area, 'conversation');
      assert.deepEqual(e.details, [{ '@type': 'x' }]);
      assert.match(e.message, new RegExp(`S${status} happened`));
      return true;
    });
  }
});

test('an unclassified 4xx is a non-retryable PlatformError', () => {
  const err = platformErrorFromResponse({ area: 'voice', status: 405, body: undefined });
  assert.equal(err.constructor, PlatformError);
  assert.equal(err.retryable, false);
  assert.equal(err.code, 'HTTP_405');
});

test('Retry-After in seconds and as an HTTP-date is parsed into retryAfterMs', async (t) => {
  const seconds = await startStub(t, (res) => {
    res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
    res.end(JSON.stringify(conversationError(429, 'RESOURCE_EXHAUSTED')));
  });
  const http = new PlatformHttp({ timeoutMs: 2000 });
  await assert.rejects(http.request({ area: 'conversation', method: 'POST', url: seconds, json: {} }), (err: unknown) => {
    assert.ok(err instanceof PlatformRateLimitError);
    assert.equal(err.retryAfterMs, 7000);
    assert.equal(err.code, 'RESOURCE_EXHAUSTED');
    return true;
  });

  const inTenSeconds = new Date(Math.ceil(Date.now() / 1000) * 1000 + 10_000).toUTCString();
  const date = await startStub(t, (res) => {
    res.writeHead(429, { 'retry-after': inTenSeconds });
    res.end();
  });
  await assert.rejects(http.request({ area: 'conversation', method: 'GET', url: date }), (err: unknown) => {
    assert.ok(err instanceof PlatformRateLimitError);
    assert.ok(err.retryAfterMs! > 8000 && err.retryAfterMs! <= 11_000, String(err.retryAfterMs));
    return true;
  });

  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now), 0);
  assert.equal(parseRetryAfter('1.5', now), 1500);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter(undefined, now), undefined);
  assert.equal(parseRetryAfter('', now), undefined);
});

test('MMS E113 and E106 are rate limits, also inside a 200 answer; other E-codes map by meaning', () => {
  const mms = (status: number, code: string, headers: Record<string, string> = {}) =>
    platformErrorFromResponse({ area: 'mms', status, headers, body: { status: 'Failure', 'error-code': code, 'error-info': `${code} info` } });

  const e113 = mms(200, 'E113', { 'retry-after': '2' });
  assert.ok(e113 instanceof PlatformRateLimitError);
  assert.equal(e113.retryable, true);
  assert.equal(e113.retryAfterMs, 2000);
  assert.equal(e113.code, 'E113');
  assert.match(e113.message, /E113 info/);
  assert.ok(mms(400, 'E106') instanceof PlatformRateLimitError);
  assert.ok(mms(401, 'E104') instanceof PlatformAuthError);
  assert.ok(mms(200, 'E112') instanceof PlatformAuthError);
  assert.ok(mms(200, 'E110') instanceof PlatformValidationError);
  assert.ok(mms(400, 'E225') instanceof PlatformValidationError);
  assert.ok(mms(200, 'E503') instanceof PlatformUnavailableError);
  assert.ok(mms(500, 'E999') instanceof PlatformUnavailableError);
});

test('per-area body parsers', () => {
  const cases: Array<[PlatformInterface, unknown, { code?: string; message?: string; details?: unknown }]> = [
    ['voice', { errorCode: 40102, message: 'Invalid signature' }, { code: '40102', message: 'Invalid signature', details: undefined }],
    ['verification', { errorCode: 40001, message: 'bad', reference: 'ref-1' }, { code: '40001', message: 'bad', details: { reference: 'ref-1' } }],
    [
      'subprojects',
      { error: { code: 403, message: 'not yet', status: 'PERMISSION_DENIED', details: [] } },
      { code: 'PERMISSION_DENIED', message: 'not yet', details: [] },
    ],
    ['template', { error: { code: 404, message: 'gone' } }, { code: '404', message: 'gone', details: undefined }],
    ['mms', { status: 'Failure', 'error-code': 'E113', 'error-info': 'slow down' }, { code: 'E113', message: 'slow down' }],
    [
      'provisioning',
      { errorCode: 'invalid_input', message: 'bad', resolution: 'fix it', validationErrors: [{ field: 'name' }] },
      { code: 'invalid_input', message: 'bad', details: { resolution: 'fix it', validationErrors: [{ field: 'name' }] } },
    ],
    ['auth', { error: 'invalid_client', error_description: 'nope' }, { code: 'invalid_client', message: 'nope' }],
    ['voice', 'Service Unavailable', { message: 'Service Unavailable' }],
    ['conversation', undefined, {}],
  ];
  for (const [area, body, expected] of cases) assert.deepEqual(parseErrorBody(area, body), expected, `${area} ${JSON.stringify(body)}`);

  const provisioning = platformErrorFromResponse({ area: 'provisioning', status: 400, body: cases[5]![1] });
  assert.ok(provisioning instanceof PlatformValidationError);
  assert.equal(provisioning.code, 'invalid_input');
  const unknownShape = platformErrorFromResponse({ area: 'subprojects', status: 502, body: '<html>bad gateway</html>' });
  assert.ok(unknownShape instanceof PlatformUnavailableError);
  assert.equal(unknownShape.code, 'HTTP_502');
});

test('timeouts and connection failures are retryable PlatformUnavailableErrors', async (t) => {
  const slow = await startStub(t, (res) => {
    setTimeout(() => res.end('{}'), 500).unref();
  });
  const http = new PlatformHttp({ timeoutMs: 50 });
  await assert.rejects(http.request({ area: 'voice', method: 'GET', url: slow }), (err: unknown) => {
    assert.ok(err instanceof PlatformUnavailableError);
    assert.equal(err.code, 'TIMEOUT');
    assert.equal(err.retryable, true);
    assert.equal(err.httpStatus, undefined);
    return true;
  });

  // A port that was just free: nothing listens there any more.
  const port = await closedPort();
  await assert.rejects(new PlatformHttp({ timeoutMs: 2000 }).request({ area: 'voice', method: 'GET', url: `http://127.0.0.1:${port}/` }), (err: unknown) => {
    assert.ok(err instanceof PlatformUnavailableError);
    assert.equal(err.code, 'NETWORK_ERROR');
    return true;
  });
});

test('caller cancellation is rethrown as-is, not as a platform error', async (t) => {
  const slow = await startStub(t, (res) => {
    setTimeout(() => res.end('{}'), 500).unref();
  });
  const controller = new AbortController();
  const pending = new PlatformHttp({ timeoutMs: 2000 }).request({ area: 'voice', method: 'GET', url: slow, signal: controller.signal });
  controller.abort();
  await assert.rejects(pending, (err: unknown) => {
    assert.ok(!(err instanceof PlatformError));
    assert.equal((err as Error).name, 'AbortError');
    return true;
  });
});

test('2xx answers resolve with status, lower-case headers and parsed body; query params are encoded', async (t) => {
  let seenUrl = '';
  const url = `${await listenStub(t, (req, res) => {
    seenUrl = req.url!;
    res.writeHead(201, { 'Content-Type': 'application/json', 'X-Thing': 'yes' });
    res.end('{"a":1}');
  })}/p`;
  const res = await new PlatformHttp({ timeoutMs: 2000 }).request({ area: 'batch', method: 'GET', url, query: { a: 'x y', b: 2, c: undefined, d: true } });
  assert.equal(res.status, 201);
  assert.equal(res.headers['x-thing'], 'yes');
  assert.deepEqual(res.body, { a: 1 });
  assert.equal(seenUrl, '/p?a=x+y&b=2&d=true');
});
