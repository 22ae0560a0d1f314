// OpenTelemetry's standard variables turn traces on (common/tracing.ts); off by default.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateCodecKey } from '../../common/codec.js';
import { loadConfig } from '../../common/config.js';

const base = {
  RELAYFLOW_API_KEYS: 'a-very-long-api-key-for-tests-000',
  RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'),
  PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
};
const tracesUrl = (env: Record<string, string>) => loadConfig({ ...base, ...env }).tracing?.tracesUrl;

test('off unless an OTLP endpoint is set', () => {
  assert.equal(tracesUrl({}), undefined);
});

test('OTEL_EXPORTER_OTLP_ENDPOINT is a base URL, the traces endpoint is used as it is and wins', () => {
  assert.equal(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), 'http://collector:4318/v1/traces');
  assert.equal(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector:4318/otlp/' }), 'https://collector:4318/otlp/v1/traces');
  assert.equal(tracesUrl({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom/traces' }), 'http://collector:4318/custom/traces');
  assert.equal(
    tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/v1/traces' }),
    'http://b:4318/v1/traces',
  );
});

test('OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn it off', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  assert.equal(tracesUrl({ ...endpoint, OTEL_SDK_DISABLED: 'true' }), undefined);
  assert.equal(tracesUrl({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }), undefined);
  assert.equal(tracesUrl({ ...endpoint, OTEL_TRACES_EXPORTER: 'otlp' }), 'http://collector:4318/v1/traces');
});

test('a bad endpoint names its variable', () => {
  assert.throws(
    () => loadConfig({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
    /^ConfigError: OTEL_EXPORTER_OTLP_ENDPOINT: must (be an absolute http\(s\) URL|use http or https)/,
  );
  assert.throws(
    () => loadConfig({ ...base, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' }),
    /^ConfigError: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must use http or https/,
  );
});
