// The metrics hook on a bare app: callback outcomes from the status and from the intake's own word
// (duplicate), route patterns for requests, and one "unmatched" route for whatever no route answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { registry } from '../../api/metrics/series.js';
import { metricsPlugin, noteDuplicateCallback } from '../../api/plugins/metrics.js';
import { parseMetrics, total } from '../helpers/metrics.js';

test('callbacks are counted by kind and outcome, requests by route pattern', async () => {
  const app = Fastify();
  await app.register(metricsPlugin);
  const signed = { config: { auth: 'signature' as const } };
  app.post('/callbacks/mms/:token', signed, async (req, reply) => {
    const { token } = req.params as { token: string };
    if (token === 'wrong') return reply.status(404).send();
    if (token === 'again') noteDuplicateCallback(req);
    if (token === 'down') return reply.status(503).send();
    return {};
  });
  app.get('/v1/things/:id', async () => ({}));
  await app.ready();

  const before = parseMetrics(await registry.metrics());
  for (const token of ['ok', 'again', 'again', 'wrong', 'down']) await app.inject({ method: 'POST', url: `/callbacks/mms/${token}` });
  await app.inject({ method: 'GET', url: '/v1/things/a' });
  await app.inject({ method: 'GET', url: '/v1/things/b' });
  await app.inject({ method: 'GET', url: '/v1/nothing-here' });
  await app.inject({ method: 'DELETE', url: '/v1/things/a' });
  const after = parseMetrics(await registry.metrics());
  const moved = (name: string, labels: Record<string, string>) => total(after, name, labels) - total(before, name, labels);

  for (const [outcome, n] of [
    ['accepted', 1],
    ['duplicate', 2],
    ['refused', 1],
    ['failed', 1],
  ] as const) {
    assert.equal(moved('relayflow_callbacks_total', { kind: 'mms', outcome }), n, outcome);
  }
  assert.equal(moved('relayflow_http_requests_total', { method: 'GET', route: '/v1/things/:id', status: '200' }), 2);
  assert.equal(moved('relayflow_http_requests_total', { route: 'unmatched', status: '404' }), 2, 'an unknown path and an unknown method');
  assert.equal(moved('relayflow_http_requests_total', { route: '/callbacks/mms/:token' }), 5);
  assert.equal(moved('relayflow_callbacks_total', {}), 5, 'only the signed route counts as a callback');

  const res = await app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
  await app.close();
});
