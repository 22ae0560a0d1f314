// With a tracer, PlatformHttp makes each call a client span: `platform <area> <METHOD>`, the method, host and
// status, and for a failure its type (never the path, the query or the error's message).
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test, type TestContext } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { PlatformHttp } from '../../platform/http.js';
import { listenStub } from '../helpers/stub-server.js';

/** A stub answering /<status>, or /slow (never in time). */
function stub(t: TestContext): Promise<string> {
  return listenStub(t, (req, res: ServerResponse) => {
    req.resume();
    if (req.url?.startsWith('/slow')) return void setTimeout(() => res.end('{}'), 3_000).unref();
    const status = Number(req.url!.slice(1).split('?')[0]);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end('{}');
  });
}

test('each platform call is a client span with its method, host, status and failure type', async (t) => {
  const base = await stub(t);
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  // Calls answered at once get 5 s (a loaded CI machine took over 100 ms to answer one); /slow gets 100 ms.
  const http = new PlatformHttp({ timeoutMs: 5_000, tracer: provider.getTracer('test') });
  const last = () => exporter.getFinishedSpans().at(-1)!;

  await http.request({ area: 'subprojects', method: 'POST', url: `${base}/200`, query: { phone: '+15550001111' }, json: {} });
  assert.equal(last().name, 'platform subprojects POST');
  assert.equal(last().kind, SpanKind.CLIENT);
  assert.deepEqual(
    last().attributes,
    {
      'platform.area': 'subprojects',
      'http.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(base).port),
      'http.status_code': 200,
    },
    'no path, no query',
  );
  assert.equal(last().status.code, SpanStatusCode.UNSET);

  await assert.rejects(http.request({ area: 'senderid', method: 'GET', url: `${base}/503` }));
  assert.equal(last().name, 'platform senderid GET');
  assert.equal(last().attributes['http.status_code'], 503);
  assert.equal(last().attributes['error.type'], 'unavailable');
  assert.deepEqual(last().status, { code: SpanStatusCode.ERROR, message: 'unavailable' });

  await assert.rejects(http.request({ area: 'voice', method: 'GET', url: `${base}/slow`, timeoutMs: 100 }));
  assert.equal(last().attributes['error.type'], 'timeout');
  assert.equal(last().attributes['http.status_code'], undefined, 'no answer, no status');

  await assert.rejects(http.request({ area: 'subprojects', method: 'GET', url: `${base}/403`, expectedStatuses: [403] }));
  // By name: the timed-out call above may end its span after this one on a loaded machine.
  const forbidden = exporter
    .getFinishedSpans()
    .filter((s) => s.name === 'platform subprojects GET')
    .at(-1)!;
  assert.equal(forbidden.attributes['http.status_code'], 403);
  assert.notEqual(forbidden.status.code, SpanStatusCode.ERROR, 'an expected answer is no failure');

  const abort = new AbortController();
  const pending = http.request({ area: 'mms', method: 'GET', url: `${base}/slow`, signal: abort.signal, timeoutMs: 2_000 });
  abort.abort();
  await assert.rejects(pending);
  assert.equal(last().attributes['platform.outcome'], 'cancelled');
  assert.notEqual(last().status.code, SpanStatusCode.ERROR, "the caller's own abort is no platform failure");
  assert.equal(exporter.getFinishedSpans().length, 5, 'one span per call');
});

test('without a tracer nothing changes: the call is made and answered as before', async (t) => {
  const base = await stub(t);
  const res = await new PlatformHttp({ timeoutMs: 1_000 }).request({ area: 'voice', method: 'GET', url: `${base}/200` });
  assert.equal(res.status, 200);
});
