// RELAYFLOW_WORKER_METRICS_PORT / _HOST: on by default at 127.0.0.1:9464, `off` turns it off, a bad value names its variable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateCodecKey } from '../../common/codec.js';
import { loadConfig } from '../../common/config.js';

const base = {
  RELAYFLOW_API_KEYS: 'a-very-long-api-key-for-tests-000',
  RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'),
  PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
};

test('the worker serves its metrics on 127.0.0.1:9464 unless told otherwise', () => {
  assert.deepEqual(loadConfig(base).workerMetrics, { host: '127.0.0.1', port: 9464, explicit: false });
  assert.deepEqual(loadConfig({ ...base, RELAYFLOW_WORKER_METRICS_PORT: '9100', RELAYFLOW_WORKER_METRICS_HOST: '0.0.0.0' }).workerMetrics, {
    host: '0.0.0.0',
    port: 9100,
    explicit: true,
  });
  assert.equal(loadConfig({ ...base, RELAYFLOW_WORKER_METRICS_PORT: 'off' }).workerMetrics, undefined);
});

test('a bad port or host names its variable', () => {
  for (const port of ['0', '65536', 'nine', '-1']) {
    assert.throws(
      () => loadConfig({ ...base, RELAYFLOW_WORKER_METRICS_PORT: port }),
      /^ConfigError: RELAYFLOW_WORKER_METRICS_PORT: must be a port \(1 to 65535\) or "off"/,
    );
  }
  assert.throws(
    () => loadConfig({ ...base, RELAYFLOW_WORKER_METRICS_HOST: 'localhost' }),
    /^ConfigError: RELAYFLOW_WORKER_METRICS_HOST: must be an IP address/,
  );
});
