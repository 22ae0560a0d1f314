// The worker's metrics port taken: an explicit RELAYFLOW_WORKER_METRICS_PORT stops start-up naming it; the
// default only warns, and the worker runs without metrics (a second worker on one machine).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Runtime } from '@temporalio/worker';
import { createLogger } from '../../common/logger.js';
import { installRuntime } from '../../workers/runtime.js';
import { startStub, type Stub } from '../helpers/stub-server.js';

let taken: Stub | undefined;
after(async () => {
  await taken?.close();
  await Runtime._instance?.shutdown();
});

test('a taken metrics port: an error naming the variable when explicit, a warning when the default', async () => {
  // Any server on the port takes it: a stub that answers nothing.
  taken = await startStub(() => undefined);
  const port = taken.port;
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level: 'warn', destination: { write: (line: string) => lines.push(line) } as never });

  assert.throws(
    () => installRuntime(logger, { handleSignals: false, metrics: { host: '127.0.0.1', port, explicit: true } }),
    new RegExp(`^ConfigError: RELAYFLOW_WORKER_METRICS_PORT: 127\\.0\\.0\\.1:${port} is in use`),
  );
  assert.equal(Runtime._instance, undefined, 'nothing installed');

  assert.equal(installRuntime(logger, { handleSignals: false, metrics: { host: '127.0.0.1', port, explicit: false } }), undefined);
  assert.ok(Runtime._instance, 'installed without the exporter');
  assert.ok(
    lines.some((l) => l.includes('worker metrics not served')),
    lines.join(''),
  );
});
