// Traces across API -> workflow -> activity -> platform call, exported by OTLP/HTTP to an in-process receiver;
// and, with no endpoint configured, nothing exported while processes run as before: OpenTelemetry's workflow
// interceptors are bundled but not loaded in a run whose start carried no trace (processes/shared/workflow/tracing-interceptors.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { createLogger } from '../../common/logger.js';
import { flushTracing, isTracing, shutdownTracing } from '../../common/tracing.js';
import { TRACE_HEADER as OTEL_TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import { TRACE_HEADER as DEFERRED_TRACE_HEADER } from '../../processes/shared/workflow/tracing-interceptors.js';
import { flushRuntimeLogs, startHarness, useHarness, uniqueName, type Harness } from '../helpers/harness.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';

const TRACE_HEADER = '_tracer-data';
const SERVER = 2;
const CLIENT = 3;

async function startSubproject(h: Harness): Promise<string> {
  const res = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName: uniqueName('traced') } });
  assert.equal(res.statusCode, 202, res.body);
  return res.json<{ processId: string }>().processId;
}

/** The trace header of the process's start, and of its first scheduled activity, as carriers ({ traceparent }). */
async function traceHeaders(h: Harness, processId: string) {
  const { events } = await h.client.workflow.getHandle(processId).fetchHistory();
  const carrier = (fields: Record<string, Payload> | null | undefined) => {
    const p = fields?.[TRACE_HEADER];
    return p ? defaultPayloadConverter.fromPayload<Record<string, string>>(p) : undefined;
  };
  const started = events?.find((e) => e.workflowExecutionStartedEventAttributes)?.workflowExecutionStartedEventAttributes;
  const scheduled = events?.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
  assert.ok(started && scheduled, 'the history has a start and a scheduled activity');
  return {
    start: carrier(started.header?.fields as Record<string, Payload> | undefined),
    activity: carrier(scheduled.header?.fields as Record<string, Payload> | undefined),
  };
}

describe('traces', () => {
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(async () => {
    await shutdownTracing();
    await receiver.close();
  });

  test("the workflow bundle carries OpenTelemetry's workflow interceptors", () => {
    const bundle = process.env.RELAYFLOW_WORKFLOW_BUNDLE;
    assert.ok(bundle, 'npm test builds the bundle (RELAYFLOW_WORKFLOW_BUNDLE)');
    const code = readFileSync(bundle, 'utf8');
    assert.match(code, /OpenTelemetryInboundInterceptor/);
    assert.match(code, /process-ended-metric/);
    assert.match(code, /tracing-interceptors/);
  });

  test('the deferred loader looks for the header OpenTelemetry writes', () => {
    assert.equal(DEFERRED_TRACE_HEADER, OTEL_TRACE_HEADER);
  });

  describe('without an OTLP endpoint', () => {
    let h: Harness;
    const lines: Array<{ msg: string; level: number }> = [];
    before(async () => {
      // The first harness of the file: its logger is also the Temporal runtime's (the worker's own lines).
      const stream = new PassThrough();
      stream.on('data', (chunk: Buffer) => {
        for (const text of chunk.toString().split('\n')) if (text.trim()) lines.push(JSON.parse(text) as { msg: string; level: number });
      });
      h = await startHarness({ logger: createLogger({ name: 'test', level: 'warn', destination: stream }) });
    });
    after(async () => h.close());

    test('a process runs to its end, nothing is exported and the API adds no trace header', async () => {
      assert.equal(h.config.tracing?.tracesUrl, undefined);
      const id = await startSubproject(h);
      await h.waitForState(id, 'READY');
      await h.client.workflow.getHandle(id).result();
      assert.equal(isTracing('relayflow-api'), false);
      assert.equal(isTracing('relayflow-worker'), false);
      await flushTracing();
      assert.equal(receiver.requests, 0, 'nothing reached the receiver');
      const headers = await traceHeaders(h, id);
      assert.equal(headers.start, undefined, 'the start carries no trace header');
      // OpenTelemetry's workflow interceptors were not loaded in this run: they would have added their header.
      assert.equal(headers.activity, undefined, 'no trace header on the activity: the workflow interceptors stayed unloaded');
      await flushRuntimeLogs();
      assert.deepEqual(
        lines.filter((l) => /sink/i.test(l.msg)),
        [],
        'no sink errors',
      );
    });
  });

  describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    const h = useHarness(() => ({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } }));

    test('one trace: API request -> StartWorkflow -> RunWorkflow -> StartActivity -> RunActivity -> platform call', async () => {
      assert.equal(h.config.tracing?.tracesUrl, `${receiver.url}/v1/traces`);
      const id = await startSubproject(h);
      await h.waitForState(id, 'READY');
      await h.client.workflow.getHandle(id).result();

      // The request's span, then its trace's spans as they arrive (the workflow's only once it has ended).
      const inTrace = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);
      let request: ReceivedSpan | undefined;
      let run: ReceivedSpan | undefined;
      let platformCalls: ReceivedSpan[] = [];
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        await flushTracing();
        request = receiver.spans.find((s) => s.name === 'POST /v1/subprojects' && s.attributes['http.status_code'] === 202);
        if (request) {
          run = inTrace(request.traceId).find((s) => s.name === 'RunWorkflow:subprojectProvisioning');
          platformCalls = inTrace(request.traceId).filter((s) => s.name.startsWith('platform subprojects '));
          if (run && platformCalls.length >= 2) break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(request, `the request span was exported: ${JSON.stringify(receiver.spans.map((s) => s.name))}`);
      const spans = inTrace(request.traceId);
      const names = JSON.stringify(spans.map((s) => `${s.service} ${s.name}`));
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const parentOf = (s: ReceivedSpan) => byId.get(s.parentSpanId);

      assert.equal(request.service, 'relayflow-api');
      assert.equal(request.kind, SERVER);
      assert.equal(request.parentSpanId, '', 'the request starts the trace');
      assert.deepEqual([request.attributes['http.method'], request.attributes['http.route']], ['POST', '/v1/subprojects']);

      const start = spans.find((s) => s.name === 'StartWorkflow:subprojectProvisioning');
      assert.ok(start, `StartWorkflow in the trace: ${names}`);
      assert.equal(start.service, 'relayflow-api');
      assert.equal(parentOf(start), request, "the start is the request's child");

      assert.ok(run, `RunWorkflow in the trace: ${names}`);
      assert.equal(run.service, 'relayflow-worker');
      assert.equal(parentOf(run), start, "the run is the start's child");
      assert.equal(run.attributes.temporalWorkflowId, id);

      const activities = spans.filter((s) => s.name.startsWith('RunActivity:'));
      // ensureSubproject (its look-up and create are the platform calls below); the wait until usable is a timer (277db1e).
      assert.ok(
        activities.some((a) => a.name === 'RunActivity:ensureSubproject'),
        `ensureSubproject in the trace: ${names}`,
      );
      for (const a of activities) {
        assert.equal(a.service, 'relayflow-worker');
        const scheduled = parentOf(a);
        assert.equal(scheduled?.name, a.name.replace('RunActivity:', 'StartActivity:'), 'each activity under its StartActivity span');
        assert.equal(parentOf(scheduled!), run, 'scheduled by the workflow run');
        assert.equal(a.attributes.temporalWorkflowId, id);
      }

      assert.ok(platformCalls.length >= 2, `platform calls in the trace: ${names}`);
      for (const p of platformCalls) {
        assert.equal(p.service, 'relayflow-worker');
        assert.equal(p.kind, CLIENT);
        assert.ok(activities.includes(parentOf(p)!), `${p.name} is an activity's child`);
        assert.equal(p.attributes['platform.area'], 'subprojects');
        assert.equal(p.attributes['http.method'], p.name.split(' ')[2]);
        assert.equal(typeof p.attributes['http.status_code'], 'number');
      }
      const create = platformCalls.find((p) => p.name === 'platform subprojects POST');
      assert.ok(create, `the create call: ${names}`);
      assert.equal(create.attributes['http.status_code'], 200);
      assert.equal(parentOf(create)?.name, 'RunActivity:ensureSubproject');

      // The context travels in the history's headers: the start's is the StartWorkflow span's.
      const headers = await traceHeaders(h, id);
      assert.equal(headers.start?.traceparent, `00-${request.traceId}-${start.spanId}-01`);
    });
  });
});
