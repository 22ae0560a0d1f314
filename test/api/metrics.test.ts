// The API's GET /metrics, scraped before and after real traffic: requests by route pattern and status,
// processes started, callbacks accepted and refused, the API's own platform calls, process metrics.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { VERIFICATION_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { useHarness, uniqueName } from '../helpers/harness.js';
import { scrape, total, type Sample } from '../helpers/metrics.js';
import { postCallback } from '../helpers/verification.js';

describe('API metrics', () => {
  const h = useHarness();

  test('GET /metrics is public Prometheus text with process metrics, and not in the OpenAPI document', async () => {
    const res = await fetch(`${h.apiUrl}/metrics`);
    assert.equal(res.status, 200, 'no API key needed');
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^relayflow_process_cpu_user_seconds_total \d/m, 'default process metrics, prefixed');
    assert.match(text, /^relayflow_nodejs_eventloop_lag_seconds \d/m);
    // Every kind and outcome is a series from the start (at zero until its first callback; other files in this
    // process may have sent some already).
    for (const kind of ['voice', 'verification', 'provisioning', 'senderid', 'conversation', 'mms'])
      for (const outcome of ['accepted', 'duplicate', 'refused', 'failed'])
        assert.match(text, new RegExp(`^relayflow_callbacks_total\\{kind="${kind}",outcome="${outcome}"\\} \\d+$`, 'm'), `${kind} ${outcome}`);
    const doc = (await h.app.inject({ method: 'GET', url: '/docs/json' })).json();
    assert.equal(doc.paths['/metrics'], undefined, 'kept out of the document (and so out of the fuzzer)');
  });

  test('real traffic moves the named series by what it did', async () => {
    const before = await scrape(`${h.apiUrl}/metrics`);

    // A start that creates, then the same start again, which finds it: one process started.
    const displayName = uniqueName('metrics');
    const first = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName } });
    assert.equal(first.statusCode, 202, first.body);
    const again = await h.api({ method: 'POST', url: '/v1/subprojects', payload: { displayName } });
    assert.equal(again.statusCode, 200, again.body);
    const { processId } = first.json<{ processId: string }>();
    for (let i = 0; i < 3; i++) assert.equal((await h.api({ method: 'GET', url: `/v1/subprojects/${encodeURIComponent(processId)}` })).statusCode, 200);
    assert.equal((await h.api({ method: 'GET', url: `/no/such/route/${processId}` })).statusCode, 404);

    // Callbacks: one signed and accepted (a result for no relayflow process is acknowledged), one with a
    // bad signature, one signed but breaking the event's schema.
    const result = {
      event: 'VerificationResultEvent',
      id: `plat-${uniqueName('m')}`,
      method: 'sms',
      identity: { type: 'number', endpoint: '+46700000001' },
      status: 'SUCCESSFUL',
    };
    assert.equal((await postCallback(h, result)).status, 200);
    const forged = await fetch(`${h.apiUrl}${VERIFICATION_CALLBACK_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Application sandbox-app-key:bm90LXRoZS1zaWduYXR1cmU=',
        'x-timestamp': new Date().toISOString(),
      },
      body: JSON.stringify(result),
    });
    assert.equal(forged.status, 401);
    assert.equal((await postCallback(h, { ...result, status: undefined })).status, 400);

    // The API's own platform calls: a pass-through read, and one the platform answers 404.
    assert.equal((await h.api({ method: 'GET', url: '/v1/senderid/markets?marketCode=AU&registrationType=LONG_NUMBER' })).statusCode, 200);
    const missing = await h.api({ method: 'GET', url: '/v1/senderid/policies/pol-does-not-exist' });
    assert.equal(missing.statusCode, 404, missing.body);

    const after = await scrape(`${h.apiUrl}/metrics`);
    const moved = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);

    const requests = 'relayflow_http_requests_total';
    assert.equal(moved(requests, { method: 'POST', route: '/v1/subprojects', status: '202' }), 1);
    assert.equal(moved(requests, { method: 'POST', route: '/v1/subprojects', status: '200' }), 1);
    assert.equal(moved(requests, { method: 'GET', route: '/v1/subprojects/:processId', status: '200' }), 3);
    assert.equal(moved(requests, { method: 'GET', route: 'unmatched', status: '404' }), 1);
    assert.equal(moved(requests, { method: 'POST', route: VERIFICATION_CALLBACK_PATH }), 3);
    assert.equal(moved('relayflow_http_request_duration_seconds_count', { method: 'GET', route: '/v1/subprojects/:processId', status: '200' }), 3);
    assert.ok(moved('relayflow_http_request_duration_seconds_sum', { method: 'POST', route: '/v1/subprojects' }) > 0);
    const routes = new Set(after.filter((s: Sample) => s.name === requests).map((s) => s.labels.route!));
    assert.ok(![...routes].some((r) => r.includes(processId) || r.includes('/no/such')), `route patterns only, never URLs: ${[...routes].join(', ')}`);

    assert.equal(moved('relayflow_processes_started_total', { kind: 'subproject' }), 1, 'the second start found the first process');
    assert.equal(moved('relayflow_callbacks_total', { kind: 'verification', outcome: 'accepted' }), 1);
    assert.equal(moved('relayflow_callbacks_total', { kind: 'verification', outcome: 'refused' }), 2);
    assert.equal(moved('relayflow_callbacks_total', { kind: 'verification', outcome: 'duplicate' }), 0);

    assert.ok(moved('relayflow_platform_calls_total', { area: 'senderid', outcome: 'ok' }) >= 1, 'the markets read');
    assert.equal(moved('relayflow_platform_calls_total', { area: 'senderid', outcome: 'error' }), 1);
    assert.equal(moved('relayflow_platform_call_errors_total', { area: 'senderid', type: 'not_found' }), 1);
  });
});
