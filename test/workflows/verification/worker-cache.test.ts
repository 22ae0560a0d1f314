// The worker's sticky cache is bounded. On Node 20 every cached workflow's AsyncLocalStorage instances (the SDK's
// and OpenTelemetry's, about four each) tag every promise the workflow thread makes, so each workflow task costs
// time in proportion to the workflows held. When each verified number also left a guard workflow open (and,
// unbounded, cached) for an hour, the benchmark's throughput fell round after round (0.21, 0.18, 0.14 of the
// baseline); verifications waiting for their code pile up the same way.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../../common/logger.js';
import { DEFAULT_WORKER_CACHED_WORKFLOWS, loadConfig } from '../../../common/config.js';
import { createWorker, type WorkerGroup } from '../../../workers/worker.js';
import { startHarness, TEST_API_KEY, type Harness } from '../../helpers/harness.js';
import { generateCodecKey } from '../../../common/codec.js';
import { freshNumber, startVerification } from '../../helpers/verification.js';

const BOUND = 4;

describe('worker sticky cache', () => {
  let h: Harness;
  let group: WorkerGroup;
  let running: Promise<void>;
  let close: () => Promise<void>;
  before(async () => {
    // The harness's API and sandbox, without its worker: this file's worker holds at most BOUND workflows.
    h = await startHarness({ withoutWorker: true, env: { RELAYFLOW_WORKER_CACHED_WORKFLOWS: String(BOUND) } });
    const { worker, connection } = await createWorker({
      config: h.config,
      logger: createLogger({ name: 'test', level: 'silent' }),
      workflowBundlePath: process.env.RELAYFLOW_WORKFLOW_BUNDLE,
    });
    group = worker;
    running = worker.run();
    close = async () => {
      worker.shutdown();
      await running;
      await connection.close();
    };
  });
  after(async () => {
    await close();
    await h.close();
  });

  test('production runs a bounded cache: the default, unless RELAYFLOW_WORKER_CACHED_WORKFLOWS says otherwise', () => {
    assert.ok(DEFAULT_WORKER_CACHED_WORKFLOWS <= 500, `default ${DEFAULT_WORKER_CACHED_WORKFLOWS}`);
    const env = {
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      RELAYFLOW_API_KEYS: TEST_API_KEY,
      RELAYFLOW_CODEC_KEYS: generateCodecKey('test'),
      PLATFORM_SANDBOX_URL: h.sandbox.url,
    };
    assert.equal(loadConfig(env).workerCachedWorkflows, DEFAULT_WORKER_CACHED_WORKFLOWS);
    assert.equal(group.workers[0]!.options.maxCachedWorkflows, BOUND);
  });

  test('verifications waiting for their code do not pile up in the cache; an evicted one still answers its look-up', async () => {
    const numbers = Array.from({ length: 3 * BOUND }, () => freshNumber());
    for (const identity of numbers) await startVerification(h, { identity, method: 'sms' });
    const cached = group.workers[0]!.getStatus().numCachedWorkflows;
    assert.ok(cached <= BOUND, `${cached} workflows cached, bound ${BOUND}`);
    // The first number's process was evicted long ago: the look-up by identity (the store) finds it, and it is replayed to answer.
    const again = await startVerification(h, { identity: numbers[0], method: 'sms' });
    assert.equal(again.state, 'PENDING');
    const recent = await h.api({ method: 'GET', url: `/v1/verifications?identity=${encodeURIComponent(numbers[0]!)}&method=sms` });
    assert.equal(recent.statusCode, 200, recent.body);
    assert.equal(recent.json().source, 'process');
  });
});
