// The client span of one platform call (platform/http.ts): `platform <area> <METHOD>`, with the method, the
// platform's host, the answer's status and, for a failure, its type. Never the path or the query (they can
// carry phone numbers and tokens) nor the error's message (it can quote what was sent).
import { SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import { platformCallArea, platformCallErrorType } from './call-observer.js';
import { PlatformError, type PlatformInterface } from './errors.js';
import type { ObservedCall } from './http.js';

export function platformCallSpan(area: PlatformInterface, call: ObservedCall): { name: string; options: { attributes: Attributes } } {
  const method = call.method ?? 'GET';
  const attributes: Attributes = { 'platform.area': platformCallArea(area), 'http.method': method };
  if (call.url !== undefined) {
    const url = new URL(call.url);
    attributes['server.address'] = url.hostname;
    if (url.port) attributes['server.port'] = Number(url.port);
  }
  return { name: `platform ${platformCallArea(area)} ${method}`, options: { attributes } };
}

/** Ends the span with how the call ended: `result` when it returned, `err` when it threw. */
export function endPlatformCallSpan(span: Span, call: ObservedCall, end: { result?: unknown; err?: unknown }): void {
  const { err } = end;
  const status = 'err' in end ? (err instanceof PlatformError ? err.httpStatus : undefined) : statusOf(end.result);
  if (status !== undefined) span.setAttribute('http.status_code', status);
  if ('err' in end) {
    // The caller's own abort (an activity cancelled) is nothing the platform did; nor is an expected status.
    const cancelled = call.signal?.aborted && !(err instanceof PlatformError);
    const expected = status !== undefined && call.expectedStatuses?.includes(status);
    if (cancelled) span.setAttribute('platform.outcome', 'cancelled');
    else if (!expected) {
      const type = platformCallErrorType(err);
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    }
  }
  span.end();
}

function statusOf(result: unknown): number | undefined {
  const status = (result as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}
