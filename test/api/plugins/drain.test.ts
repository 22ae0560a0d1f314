// app.close() waits for a route handler still running after its caller went away (the socket closed), and only up
// to its bound; sync and async handlers answer as before.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { drainHandlersOnClose } from '../../../api/plugins/drain.js';

async function appWithSlowRoute(maxMs?: number) {
  const app = Fastify();
  drainHandlersOnClose(app, maxMs);
  const events: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const startedP = new Promise<void>((resolve) => (started = resolve));
  app.get('/slow', async () => {
    started();
    await released;
    events.push('handler done');
    return { ok: true };
  });
  app.get('/sync', (_req, reply) => {
    void reply.send({ sync: true });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return { app, events, release, started: startedP, port };
}

/** A GET whose socket is destroyed as soon as the handler started: the caller went away. */
function abandon(port: number, path: string) {
  const req = request({ host: '127.0.0.1', port, path });
  req.on('error', () => undefined);
  req.end();
  return () => req.destroy();
}

describe('drainHandlersOnClose', () => {
  test('close waits for a handler whose caller went away', async () => {
    const { app, events, release, started, port } = await appWithSlowRoute();
    const hangUp = abandon(port, '/slow');
    await started;
    hangUp();
    const closing = app.close().then(() => events.push('closed'));
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(events, [], 'not closed while the handler runs');
    release();
    await closing;
    assert.deepEqual(events, ['handler done', 'closed']);
  });

  test('close waits no longer than its bound', async () => {
    const { app, started, port, release } = await appWithSlowRoute(200);
    const hangUp = abandon(port, '/slow');
    await started;
    hangUp();
    // The bound's timer does not hold the process open (unref): something else must, as a Temporal call would.
    const alive = setInterval(() => undefined, 50);
    const t0 = Date.now();
    await app.close();
    clearInterval(alive);
    const took = Date.now() - t0;
    assert.ok(took >= 150 && took < 2_000, `closed after the bound (${took} ms)`);
    release();
  });

  test('sync and async handlers answer as before', async () => {
    const { app, release } = await appWithSlowRoute();
    release();
    assert.deepEqual((await app.inject({ method: 'GET', url: '/sync' })).json(), { sync: true });
    assert.deepEqual((await app.inject({ method: 'GET', url: '/slow' })).json(), { ok: true });
    await app.close();
  });
});
