// Callback wiring outside npm start: the worker entry point (workers/main.ts, as docker-compose runs it)
// registers the provisioning webhook and the sandbox's verification callback URL at start-up when
// RELAYFLOW_PUBLIC_URL is set, once whatever the number of starts, and the API's readiness check reads
// the registration back from the platform.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { ulid } from 'ulid';
import { callbackReadiness } from '../../../api/routes/readiness.js';
import { generateCodecKey } from '../../../common/codec.js';
import { loadConfig, type Config } from '../../../common/config.js';
import { PROVISIONING_WEBHOOK_PATH, VERIFICATION_CALLBACK_PATH } from '../../../contracts/callbacks.js';
import { createPlatformClients } from '../../../platform/index.js';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { TEST_API_KEY } from '../../helpers/harness.js';
import { entryArgs } from '../../helpers/compiled-tree.js';

const PUBLIC_URL = 'https://relayflow.example.test';

interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

/** Runs workers/main.ts until `until` matches a log line, then stops it with SIGTERM; returns its log. */
async function runWorker(env: Record<string, string>, until: (l: LogLine) => boolean): Promise<{ lines: LogLine[]; code: number | null }> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(RELAYFLOW_|PLATFORM_|TEMPORAL_)/.test(k)));
  const child = spawn(process.execPath, entryArgs('workers/main.ts'), { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: LogLine[] = [];
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const seen = new Promise<void>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`worker did not log what the test waits for within 60 s; log: ${JSON.stringify(lines.map((l) => l.msg))}; stderr: ${stderr}`)),
      60_000,
    );
    child.stdout.on('data', (c: Buffer) => {
      buffered += c.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const p of parts.filter(Boolean)) {
        const line = JSON.parse(p) as LogLine;
        lines.push(line);
        if (until(line)) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    void exited.then((code) => reject(new Error(`worker exited (${code}) early; stderr: ${stderr}`)));
  });
  try {
    await seen;
  } finally {
    child.kill('SIGTERM');
  }
  const code = await exited;
  return { lines, code };
}

describe('callback wiring at worker start-up', () => {
  let sb: Sandbox;
  let config: Config;
  let env: Record<string, string>;
  const target = `${PUBLIC_URL}${PROVISIONING_WEBHOOK_PATH}`;
  const webhooks = () => createPlatformClients(config.platform).provisioning.webhooks.list();
  const webhookPosts = async () => {
    const res = await fetch(`${sb.url}/_sandbox/requests?area=provisioning&method=POST`);
    return ((await res.json()) as { requests: { path: string; status: number }[] }).requests.filter((r) => r.path.endsWith('/webhooks'));
  };

  before(async () => {
    if (!process.env.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is not set: run the tests with `npm test`');
    sb = await createSandbox();
    await sb.listen();
    env = {
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      RELAYFLOW_TASK_QUEUE: `test-${ulid()}`,
      RELAYFLOW_API_KEYS: TEST_API_KEY,
      RELAYFLOW_CODEC_KEYS: generateCodecKey('test'),
      PLATFORM_SANDBOX_URL: sb.url,
      RELAYFLOW_LOG_LEVEL: 'info',
      ...(process.env.RELAYFLOW_WORKFLOW_BUNDLE ? { RELAYFLOW_WORKFLOW_BUNDLE: process.env.RELAYFLOW_WORKFLOW_BUNDLE } : {}),
    };
    config = loadConfig({ ...env, RELAYFLOW_PUBLIC_URL: PUBLIC_URL });
  });
  after(async () => sb.close());

  test('without RELAYFLOW_PUBLIC_URL a worker registers nothing and says so', async () => {
    const { lines, code } = await runWorker(env, (l) => /RELAYFLOW_PUBLIC_URL is not set/.test(l.msg));
    assert.ok(lines.some((l) => /no callback wiring/.test(l.msg)));
    assert.equal(code, 0, 'stopped cleanly');
    assert.deepEqual(await webhooks(), []);
  });

  test('with RELAYFLOW_PUBLIC_URL each start registers the webhook and the callback URL; the second creates nothing; readiness reads it back', async () => {
    const readiness = callbackReadiness({ config, provisioning: createPlatformClients(config.platform).provisioning, cacheMs: 0 });
    const initially = await readiness();
    assert.match(initially.provisioningWebhook, /^missing: no provisioning webhook targets https:\/\/relayflow\.example\.test\/callbacks\/provisioning/);
    assert.match(initially.verificationCallback, /^missing/);

    const done = (l: LogLine) => l.msg === 'callback wiring done';
    const first = await runWorker({ ...env, RELAYFLOW_PUBLIC_URL: PUBLIC_URL }, done);
    assert.equal(first.code, 0, 'stopped cleanly');
    const wired = first.lines.find(done)!;
    assert.equal((wired.provisioningWebhook as { status: string }).status, 'registered');
    assert.ok(
      first.lines.some((l) => /provisioning webhook registered: webhook \S+ created/.test(l.msg)),
      'one line says what happened',
    );
    assert.deepEqual(
      (await webhooks()).map((w) => w.target),
      [target],
    );
    const callback = (await (await fetch(`${sb.url}/_sandbox/verification/config`)).json()) as { callbackUrl: string };
    assert.equal(callback.callbackUrl, `${PUBLIC_URL}${VERIFICATION_CALLBACK_PATH}`);

    const second = await runWorker({ ...env, RELAYFLOW_PUBLIC_URL: PUBLIC_URL }, done);
    assert.equal(second.code, 0);
    assert.ok(second.lines.some((l) => /provisioning webhook registered: webhook \S+ already registered/.test(l.msg)));
    assert.deepEqual(
      (await webhooks()).map((w) => w.target),
      [target],
      'still one webhook',
    );
    assert.equal((await webhookPosts()).length, 1, 'created once over both starts');

    assert.deepEqual(await readiness(), { provisioningWebhook: 'ok', verificationCallback: 'ok' });
  });

  test('readiness says unknown (not missing) when the platform does not answer', async () => {
    await fetch(`${sb.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ area: 'provisioning', method: 'GET', status: 503, count: 1 }),
    });
    const readiness = callbackReadiness({ config, provisioning: createPlatformClients(config.platform).provisioning, cacheMs: 0 });
    assert.match((await readiness()).provisioningWebhook, /^unknown: the platform did not answer/);
  });
});
