// `npm start`: a Temporal dev server (SQLite under .relayflow/), the platform sandbox, a worker and the API,
// each waited for, then shut down in order on Ctrl-C (the worker drains its tasks first).
import type { Client } from '@temporalio/client';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../api/app.js';
import { startDevCodecListener, type DevCodecListener } from '../api/dev-codec.js';
import { PROVISIONING_WEBHOOK_PATH, VERIFICATION_CALLBACK_PATH, VOICE_CALLBACK_PATH } from '../contracts/callbacks.js';
import { openCampaignStore } from '../store/index.js';
import { createPlatformClients } from '../platform/index.js';
import { AesGcmPayloadCodec, parseCodecKeys } from '../common/codec.js';
import { ConfigError, loadConfig, loadWorkerMetricsConfig } from '../common/config.js';
import { createLogger, type Logger } from '../common/logger.js';
import { connectClient } from '../common/temporal.js';
import { apiClientInterceptors } from '../api/temporal-actor.js';
import { createSandbox, setSandboxVerificationConfig, type Sandbox } from '../sandbox/index.js';
import { Runtime } from '@temporalio/worker';
import { cachedWorkflowBundle } from '../workers/bundle-cache.js';
import { installRuntime } from '../workers/runtime.js';
import { ensureSearchAttributes } from '../workers/search-attributes.js';
import { workerBundlePath } from '../workers/workflow-options.js';
import { createWorker } from '../workers/worker.js';
import { startDevServer, type DevServer } from './lib/dev-server.js';
import { devSecrets } from './lib/dev-secrets.js';
import { pointSandboxAt } from './lib/sandbox-urls.js';

const env = process.env;
const dataDir = resolve(env.RELAYFLOW_DATA_DIR ?? '.relayflow');
// npm start is for people: readable lines (pino-pretty, in-process so nothing is lost on exit), each record on one
// line with its fields (a request is one line, not a dozen). Deployments run workers/main.ts and api/main.ts, which
// keep JSON; RELAYFLOW_LOG_FORMAT=json keeps it here too.
const logger = createLogger({ name: 'relayflow', level: env.RELAYFLOW_LOG_LEVEL ?? 'info', destination: await devLogDestination() });

async function devLogDestination(): Promise<NodeJS.WritableStream | undefined> {
  if (env.RELAYFLOW_LOG_FORMAT === 'json') return undefined;
  try {
    const { default: pretty } = await import('pino-pretty');
    return pretty({ colorize: Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true, sync: true });
  } catch {
    return undefined; // installed without dev dependencies: JSON it is
  }
}
const say = (msg: string) => process.stdout.write(`${msg}\n`);

/** The SDK's warnings that the send queues' workers poll no workflows: true by design, nothing to act on. */
const NOTHING_TO_POLL = /^No (workflows|activities|Nexus services) registered/;

/**
 * The Temporal SDK's own lines, for people: its info lines (webpack's module list, the bundle's size, worker state
 * changes) and the send queues' "nothing to poll" warnings at debug (RELAYFLOW_LOG_LEVEL=debug shows them); its
 * other warnings and errors (an activity or workflow task that failed) as they are.
 */
function sdkLinesForPeople(base: Logger): Logger {
  return new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'child') return (bindings: Record<string, unknown>) => sdkLinesForPeople(target.child(bindings));
      if (prop === 'info') return target.debug.bind(target);
      if (prop === 'warn') {
        return (...args: Parameters<Logger['warn']>) => {
          const text = typeof args[0] === 'string' ? args[0] : String(args[1] ?? '');
          (NOTHING_TO_POLL.test(text) ? target.debug : target.warn).apply(target, args);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}
const stops: Array<[string, () => Promise<unknown>]> = [];

async function main(): Promise<void> {
  const secrets = await devSecrets(dataDir);
  env.RELAYFLOW_DATA_DIR = dataDir;
  env.RELAYFLOW_API_KEYS ||= secrets.apiKey;
  // Subscriptions to a receiver on this machine (the example app, a local tunnel) are what npm start is for.
  env.RELAYFLOW_EVENTS_ALLOW_PRIVATE_URLS ||= 'on';
  env.RELAYFLOW_CODEC_KEYS ||= secrets.codecKeys;
  const uiPort = Number(env.RELAYFLOW_TEMPORAL_UI_PORT || 8233);
  env.RELAYFLOW_CODEC_CORS_ORIGINS ||= `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`;

  // Before anything touches Temporal: the dev server start would otherwise create a default runtime
  // that handles Ctrl-C itself and logs unstructured.
  // It also serves the worker's /metrics (RELAYFLOW_WORKER_METRICS_PORT, default 127.0.0.1:9464).
  const workerMetrics = installRuntime(sdkLinesForPeople(logger), { handleSignals: false, metrics: loadWorkerMetricsConfig(env) });
  // The workflow bundle, while the servers start: a prebuilt one, else the one kept under the data directory while
  // nothing it was built from changed (workers/bundle-cache.ts), else webpack (about 4 s), kept for the next start.
  const prebuilt = workerBundlePath();
  const bundleDir = join(dataDir, 'workflow-bundles');
  const bundling = prebuilt ? undefined : cachedWorkflowBundle(bundleDir, { logger: Runtime.instance().logger });
  bundling?.catch(() => undefined); // awaited below; a server that fails first must not leave it unhandled
  let temporalUi = 'the UI of your Temporal server';
  let uiCodec: DevCodecListener | undefined;
  if (!env.TEMPORAL_ADDRESS) {
    // The web UI cannot send an API key to the API's /codec: it decodes through a listener of its own,
    // loopback only, decode only, for the UI's origin only (api/dev-codec.ts).
    uiCodec = await startUiCodec(uiPort);
    stops.unshift(['UI codec listener', () => uiCodec!.close()]);
    say('starting the Temporal dev server...');
    const server: DevServer = await startDevServer({
      dbFilename: join(dataDir, 'temporal.db'),
      pidFile: join(dataDir, 'temporal.pid'),
      logFile: join(dataDir, 'temporal.log'),
      port: Number(env.RELAYFLOW_TEMPORAL_PORT || 7233),
      ui: true,
      uiPort,
      uiCodecEndpoint: uiCodec.endpoint,
      log: say,
    });
    stops.unshift(['Temporal dev server', () => server.stop()]);
    env.TEMPORAL_ADDRESS = server.address;
    temporalUi = `http://127.0.0.1:${uiPort}`;
    say(`Temporal dev server at ${server.address} (CLI from ${server.cli.source})`);
  }

  let sandbox: Sandbox | undefined;
  // Any platform credential means the real platform (a deployment may enable only the areas it needs).
  if (!env.PLATFORM_KEY_ID && !env.PLATFORM_APP_KEY && !env.PLATFORM_MMS_API_KEY && !env.PLATFORM_SANDBOX_URL) {
    // Its state lives under <dataDir>/sandbox, so processes in flight find their resources after a restart.
    sandbox = await createSandbox({ logger: logger.child({ component: 'sandbox' }), dataDir });
    await sandbox.listen({ port: Number(env.SANDBOX_PORT || 4010) });
    stops.unshift(['sandbox', () => sandbox!.close()]);
    env.PLATFORM_SANDBOX_URL = sandbox.url;
  }

  const config = loadConfig(env);
  // The API's client: its interceptor records who acted (outside a request it adds nothing).
  const client: Client = await connectClient(
    config,
    apiClientInterceptors(() => client),
  );
  stops.unshift(['Temporal client', () => client.connection.close()]);
  await ensureSearchAttributes(client, logger);

  // One process runs the API and the worker, so the embedded store (under the data directory) serves both.
  const store = await openCampaignStore({ url: config.database.url, dataDir: config.dataDir, logger });
  stops.unshift(['campaign store', () => store.sql.close()]);
  const bundle = await bundling;
  const { worker, connection } = await createWorker({
    config,
    logger: logger.child({ component: 'worker' }),
    store,
    publicUrl: config.api.publicUrl,
    workflowBundlePath: prebuilt ?? bundle!.path,
  });
  const running = worker.run();
  stops.unshift([
    'worker',
    async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  ]);

  const app: FastifyInstance = await buildApp({
    config,
    client,
    codec: new AesGcmPayloadCodec(config.codecKeys),
    logger: logger.child({ component: 'api' }),
    store,
  });
  await app.listen({ host: config.api.host, port: config.api.port });
  stops.unshift(['API', () => app.close()]);
  if (sandbox) {
    // The sandbox calls relayflow back like the platform would, once its dashboard names the callback URL.
    await setSandboxVerificationConfig(sandbox.url, { callbackUrl: `${config.api.publicUrl}${VERIFICATION_CALLBACK_PATH}` });
    // Provisioning webhooks: every trigger, signed with RELAYFLOW_PROVISIONING_WEBHOOK_SECRET (the sandbox default).
    const platform = createPlatformClients(config.platform, { logger });
    await platform.provisioning.webhooks.ensure(`${config.api.publicUrl}${PROVISIONING_WEBHOOK_PATH}`, config.api.provisioningWebhookSecret!);
    // Sender ID callbacks: signed with relayflow's current secret, sent to the API (registrations carry no callbackUrl here).
    await platform.senderid.setCallbackConfiguration(config.api.senderIdCallbackSecrets[0]!);
    // Where sender ID callbacks and MMS postbacks go: the sandbox takes these through its control routes.
    await pointSandboxAt({ sandboxUrl: sandbox.url, publicUrl: config.api.publicUrl, mmsPostbackToken: config.api.mmsPostbackToken! });
    // Voice callbacks go to the application's callback URL (the platform's configuration API sets it).
    await platform.voice.setCallbackUrls({ primary: `${config.api.publicUrl}${VOICE_CALLBACK_PATH}` });
  }

  const api = `http://${config.api.host}:${config.api.port}`;
  const key = config.api.apiKeys[0]!;
  const workflows = prebuilt
    ? `the prebuilt bundle ${prebuilt}`
    : bundle!.reused
      ? `from the bundle kept in ${bundleDir} (their code is unchanged since it was built)`
      : `bundled at start (${bundle!.seconds.toFixed(1)} s; kept in ${bundleDir} while their code is unchanged)`;
  say(
    [
      '',
      'relayflow is ready',
      `  API           ${api}`,
      `  API docs      ${api}/docs`,
      `  API key       ${key}${env.RELAYFLOW_API_KEYS === secrets.apiKey ? ` (kept in ${join(dataDir, 'api-key')})` : ''}`,
      `  metrics       ${api}/metrics (API)${workerMetrics ? `, ${workerMetrics} (worker)` : ''}`,
      `  Temporal UI   ${temporalUi}`,
      ...(uiCodec ? [`  UI codec      ${uiCodec.endpoint} (development: decodes for the web UI, loopback only, no key)`] : []),
      `  platform      ${sandbox ? `sandbox at ${sandbox.url} (its state kept in ${join(dataDir, 'sandbox')})` : `${config.platform.mode} (${config.platform.urls.auth})`}`,
      `  worker        task queue ${config.taskQueue}; workflows ${workflows}`,
      `  data          ${dataDir}`,
      '',
      'Try it (README.md, "Try it"), in another shell:',
      `  export API=${api}${sandbox ? ` SBX=${sandbox.url}` : ''} KEY=${key}`,
      `  curl -s -X POST $API/v1/subprojects -H "authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"displayName":"team-a"}'`,
      '',
      'Ctrl-C stops everything (the worker finishes its tasks first). More output: RELAYFLOW_LOG_LEVEL=debug.',
    ].join('\n'),
  );
}

const DEV_CODEC_PORT = 'RELAYFLOW_DEV_CODEC_PORT';

async function startUiCodec(uiPort: number): Promise<DevCodecListener> {
  const raw = env[DEV_CODEC_PORT] || '8234';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new ConfigError(DEV_CODEC_PORT, `must be a port number (0 to 65535; 0 takes any free port), got "${raw}"`);
  try {
    return await startDevCodecListener({
      codec: new AesGcmPayloadCodec(parseCodecKeys(env.RELAYFLOW_CODEC_KEYS ?? '', 'RELAYFLOW_CODEC_KEYS')),
      uiOrigins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
      port,
      logger: logger.child({ component: 'ui-codec' }),
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw new ConfigError(DEV_CODEC_PORT, `port ${port} is in use (the web UI's codec listener): set ${DEV_CODEC_PORT} to a free port, or 0 for any`);
  }
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  // npm and tsx may pass one Ctrl-C on more than once: later signals are not a second request.
  if (stopping) return;
  stopping = true;
  say(`\n${signal}: shutting down...`);
  setTimeout(() => {
    say('shutdown took longer than 60 s; stopping without waiting');
    process.exit(1);
  }, 60_000).unref();
  for (const [name, stop] of stops) {
    try {
      await stop();
      say(`  stopped ${name}`);
    } catch (err) {
      say(`  ${name} did not stop cleanly: ${(err as Error).message}`);
    }
  }
  process.exit(0);
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

main().catch(async (err) => {
  const message = err instanceof ConfigError ? `configuration error: ${err.message}` : ((err as Error).stack ?? String(err));
  process.stderr.write(`relayflow could not start: ${message}\n`);
  for (const [, stop] of stops) await stop().catch(() => undefined);
  process.exit(1);
});
