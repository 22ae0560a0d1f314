// The observer PlatformHttp tells about every call (the metrics' platform series): outcome, error type, area.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test, type TestContext } from 'node:test';
import type { PlatformCall } from '../../platform/call-observer.js';
import { PlatformHttp } from '../../platform/http.js';
import { listenStub } from '../helpers/stub-server.js';
import { PlatformValidationError } from '../../platform/errors.js';

/** A stub answering by path: /<status>, or /slow (never answers in time). */
function stub(t: TestContext): Promise<string> {
  return listenStub(t, (req, res: ServerResponse) => {
    req.resume();
    if (req.url === '/slow') return void setTimeout(() => res.end('{}'), 500);
    const status = Number(req.url!.slice(1));
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(status === 200 ? '{"status":"Failure","error-code":"E113","error-info":"throttled"}' : '{}');
  });
}

test('every call is reported once, by client folder, with why it failed', async (t) => {
  const base = await stub(t);
  const calls: PlatformCall[] = [];
  // Only the slow call is meant to time out: in a busy test process a quick answer can take more than 100 ms.
  const http = new PlatformHttp({ timeoutMs: 5_000, onCall: (c) => calls.push(c) });
  const outcome = () => {
    const c = calls.at(-1)!;
    return [c.area, c.outcome, c.errorType];
  };

  await http.request({ area: 'template', method: 'GET', url: `${base}/200` });
  assert.deepEqual(outcome(), ['conversation', 'ok', undefined], 'template and batch are the conversation folder');
  await assert.rejects(http.request({ area: 'senderid', method: 'GET', url: `${base}/503` }));
  assert.deepEqual(outcome(), ['senderid', 'error', 'unavailable']);
  await assert.rejects(http.request({ area: 'voice', method: 'GET', url: `${base}/429` }));
  assert.deepEqual(outcome(), ['voice', 'error', 'rate_limited']);
  await assert.rejects(http.request({ area: 'voice', method: 'GET', url: `${base}/slow`, timeoutMs: 100 }));
  assert.deepEqual(outcome(), ['voice', 'error', 'timeout']);
  await assert.rejects(http.request({ area: 'subprojects', method: 'GET', url: `${base}/403`, expectedStatuses: [403] }));
  assert.deepEqual(outcome(), ['subprojects', 'ok', undefined], 'an expected answer is thrown but is no failure');
  await assert.rejects(http.request({ area: 'subprojects', method: 'GET', url: `${base}/404`, expectedStatuses: [403] }));
  assert.deepEqual(outcome(), ['subprojects', 'error', 'not_found']);
  const abort = new AbortController();
  const pending = http.request({ area: 'mms', method: 'GET', url: `${base}/slow`, signal: abort.signal, timeoutMs: 2_000 });
  abort.abort();
  await assert.rejects(pending);
  assert.deepEqual(outcome(), ['mms', 'cancelled', undefined]);
  // A 2xx the area calls a failure (MMS status: Failure) is thrown and counted as one.
  await assert.rejects(
    http.request({
      area: 'mms',
      method: 'POST',
      url: `${base}/200`,
      json: {},
      failureOf: () => new PlatformValidationError({ area: 'mms', code: 'E1', message: 'no' }),
    }),
    PlatformValidationError,
  );
  assert.deepEqual(outcome(), ['mms', 'error', 'validation']);
  assert.equal(calls.length, 8, 'one report per call');
  assert.ok(calls.every((c) => c.durationMs >= 0));
});

test('an observer that throws never fails the call', async (t) => {
  const base = await stub(t);
  const http = new PlatformHttp({
    timeoutMs: 1_000,
    onCall: () => {
      throw new Error('broken counter');
    },
  });
  assert.equal((await http.request({ area: 'auth', method: 'GET', url: `${base}/200` })).status, 200);
});
