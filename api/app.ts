// The Fastify app as one function of its dependencies, so tests build it exactly as production does.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { ulid } from 'ulid';
import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import { actorPlugin } from './plugins/actor.js';
import { apiKeyAuthPlugin, keyIdLoggerFactory } from './plugins/auth.js';
import { KeyRing } from './plugins/key-ring.js';
import { registerDocs } from './plugins/docs.js';
import { drainHandlersOnClose } from './plugins/drain.js';
import { clientErrorHandler, errorHandlerPlugin } from './plugins/error-handler.js';
import { rawBodyPlugin } from './plugins/raw-body.js';
import { validationPlugin } from './plugins/validation.js';
import { metricsPlugin } from './plugins/metrics.js';
import { loggedUrl, RequestLogController } from './plugins/request-log.js';
import { API_SERVICE, requestTracingPlugin } from './plugins/tracing.js';
import { startTracing, tracerOf } from '../common/tracing.js';
import { countPlatformCall } from './metrics/series.js';
import { pageTokenKey, ProcessService } from './processes/find.js';
import { auditRoutes } from './routes/audit/index.js';
import codecRoutes from './routes/codec.js';
import { uiRoutes } from './routes/ui/index.js';
import { keyRoutes } from './routes/keys.js';
import { healthRoutes } from './routes/health.js';
import { callbackReadiness } from './routes/readiness.js';
import { processRoutes } from './routes/processes.js';
import { provisioningRoutes } from '../processes/provisioning/routes/index.js';
import { provisioningWebhookRoutes } from './callbacks/provisioning.js';
import { subprojectRoutes } from '../processes/subprojects/subproject/routes/index.js';
import { senderIdRoutes } from '../processes/senderid/senderid-registration/routes/index.js';
import { onboardingRoutes } from '../processes/onboarding/onboarding/routes/index.js';
import { senderIdCallbackRoutes } from './callbacks/senderid.js';
import { verificationCallbackRoutes } from './callbacks/verification.js';
import { verificationRoutes } from '../processes/verification/routes/index.js';
import { VerificationService } from '../processes/verification/routes/service.js';
import { subjectHasher } from '../common/subject-hash.js';
import { createPlatformClients } from '../platform/index.js';
import { AuditArchive, type CampaignStore } from '../store/index.js';
import { VoiceRuleStore } from '../store/voice-rules.js';
import { VoiceCallStore } from '../store/voice-calls.js';
import { ResourceLinkStore } from '../store/resource-links.js';
import { SeenCallbackStore } from '../store/seen-callbacks.js';
import { EventSubscriptionStore } from '../store/event-subscriptions.js';
import { sealerOf } from '../common/sealed-text.js';
import { eventSubscriptionRoutes } from './routes/event-subscriptions.js';
import { conversationWebhookRoutes } from './callbacks/conversation.js';
import { suppressionRoutes } from './routes/suppressions.js';
import { SuppressionStore } from '../store/suppressions.js';
import { DEFAULT_CONSENT_SETTINGS } from '../common/config/consent.js';
import { mmsPostbackRoutes } from './callbacks/mms.js';
import { campaignRoutes } from '../processes/campaigns/routes/index.js';
import { customerProjectCheck } from './processes/customer-project.js';
import { voiceRoutes } from '../processes/voice/routes/index.js';
import { voiceCallbackRoutes } from './callbacks/voice.js';
import { IntakePipeline } from './callbacks/intake.js';

export interface AppDeps {
  config: Pick<Config, 'api' | 'taskQueue' | 'platform' | 'processes' | 'codecKeys' | 'tracing' | 'events'> & Partial<Pick<Config, 'consent'>>;
  client: Client;
  codec: PayloadCodec;
  logger: Logger;
  /** The store; without it the campaign routes, delivery intakes, verification starts and guard routes answer 503. */
  store?: CampaignStore;
  /** The keys the API accepts; api/main.ts keeps it to reload on SIGHUP. Default: config.api.keys. */
  keys?: KeyRing;
}

/** Request bodies over this are a 413; routes whose bodies are large by nature set their own `bodyLimit`. */
const DEFAULT_BODY_LIMIT = 1024 * 1024;

export async function buildApp({ config, client, codec, logger, store, keys = new KeyRing(config.api.keys) }: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // A logged request shows its URL without secrets or phone numbers (look-ups by identity, the MMS postback token).
    loggerInstance: logger.child(
      {},
      { serializers: { req: (r: FastifyRequest) => ({ method: r.method, url: loggedUrl(r), remoteAddress: r.ip }) } },
    ) as FastifyBaseLogger,
    // One line per request instead of Fastify's two (plugins/request-log.ts).
    logController: new RequestLogController(),
    childLoggerFactory: keyIdLoggerFactory(keys),
    genReqId: () => ulid(),
    bodyLimit: DEFAULT_BODY_LIMIT,
    requestIdHeader: false,
    // Process IDs are business keys and can be long. Any parameter the request line can carry (Node caps
    // headers at 16 KiB) reaches validation, which answers 400 naming it instead of the router's bare 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Before any route: app.close() then waits for the handlers still running (plugins/drain.ts).
  drainHandlersOnClose(app);
  // Traces only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT); the hooks pass through otherwise.
  startTracing(API_SERVICE, config.tracing, logger);
  await app.register(requestTracingPlugin);
  await app.register(validationPlugin);
  await app.register(rawBodyPlugin);
  await app.register(errorHandlerPlugin);
  await registerDocs(app);
  await app.register(apiKeyAuthPlugin, { keys, limits: { perMinute: config.api.rateLimitPerMinute } });
  // Who acts (a key ID, or the platform), for the headers the Temporal client interceptor adds (the audit).
  await app.register(actorPlugin);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // GET /metrics, and the counts of every answer and callback (api/metrics/series.ts).
  await app.register(metricsPlugin);

  // Read-only look-ups of verifications relayflow did not start go to the platform directly.
  const platform = createPlatformClients(config.platform, { logger, onCall: countPlatformCall, tracer: tracerOf(API_SERVICE) });
  // Closed processes whose histories Temporal's retention deleted, kept by the workers' archiver (workers/audit/).
  const archive = store ? new AuditArchive(store.sql, codec) : undefined;
  const processes = new ProcessService(client, { pageTokenKey: pageTokenKey(config.codecKeys), ...(archive ? { archive } : {}) });
  // Workers register the callbacks only when the public URL is set (workers/callbacks.ts): only then is it worth reading back.
  const callbacks = config.api.publicUrlExplicit ? callbackReadiness({ config, provisioning: platform.provisioning }) : undefined;
  await app.register(healthRoutes, { client, callbacks });
  await app.register(processRoutes, { processes });
  await app.register(keyRoutes);
  await app.register(auditRoutes, {
    client,
    codec,
    unmaskKeyIds: config.api.auditUnmaskKeyIds ?? [],
    pageTokenKey: pageTokenKey(config.codecKeys),
    ...(archive ? { archive } : {}),
  });
  await app.register(subprojectRoutes, { client, processes, config });
  const hashSubject = subjectHasher(config.codecKeys);
  // The verification guards live in the store: without one, verification starts and the guards' routes answer 503.
  const verifications = new VerificationService(client, config, hashSubject, store?.sql);
  await app.register(verificationRoutes, { client, processes, verifications, platform: platform.verification });
  // Every platform callback goes through one pipeline: signature, dedupe by event ID in the store, hand-off, answer.
  const intakes = new IntakePipeline(store ? new SeenCallbackStore(store.sql) : undefined, logger);
  app.addHook('onClose', async () => intakes.close());
  await app.register(verificationCallbackRoutes, {
    intakes,
    client,
    verifications,
    appKey: config.platform.credentials.appKey,
    appSecret: config.platform.credentials.appSecret,
  });
  // Which process follows a platform resource: the callback intakes signal it directly (without the store: the inboxes and relays).
  const links = store ? new ResourceLinkStore(store.sql) : undefined;
  // A customer's key names only its own customer's subprojects (the starts of senders, templates, bundles, campaigns).
  const customerProject = customerProjectCheck({ processes, subprojects: platform.subprojects, parentProjectId: config.platform.credentials.projectId });
  await app.register(provisioningRoutes, {
    client,
    processes,
    config,
    provisioning: platform.provisioning,
    customerProject,
    hashSubject,
    links,
  });
  await app.register(provisioningWebhookRoutes, {
    intakes,
    client,
    taskQueue: config.taskQueue,
    secret: config.api.provisioningWebhookSecret,
    previousSecret: config.api.provisioningWebhookPreviousSecret,
    inboxIdleMs: config.processes.provisioning.inboxIdleMs,
    links,
  });
  await app.register(senderIdRoutes, { client, processes, config, senderid: platform.senderid });
  await app.register(onboardingRoutes, { client, processes, config, provisioning: platform.provisioning, senderid: platform.senderid, hashSubject });
  await app.register(senderIdCallbackRoutes, {
    intakes,
    client,
    taskQueue: config.taskQueue,
    projectId: config.platform.credentials.projectId,
    secrets: config.api.senderIdCallbackSecrets,
    pollIntervalMs: config.processes.senderid.pollIntervalMs,
    overdueGraceMs: config.processes.senderid.overdueGraceMs,
    links,
  });
  await app.register(campaignRoutes, { client, processes, config, store, provisioning: platform.provisioning, customerProject });
  // Each app's suppression list: replies (STOP, START) change it through the conversation intake, the API reads and edits it.
  const suppressions = store ? new SuppressionStore(store.sql, sealerOf(config.codecKeys), hashSubject) : undefined;
  await app.register(suppressionRoutes, { suppressions, pageTokenKey: pageTokenKey(config.codecKeys) });
  await app.register(conversationWebhookRoutes, {
    intakes,
    store,
    suppressions,
    consent: config.consent ?? DEFAULT_CONSENT_SETTINGS,
    secret: config.api.conversationWebhookSecret,
  });
  await app.register(mmsPostbackRoutes, { intakes, store, token: config.api.mmsPostbackToken });
  // The incoming-call rules: one instance for the API's routes and the voice callback intake.
  const voiceRules = store ? new VoiceRuleStore(store.sql) : undefined;
  await app.register(voiceRoutes, { client, processes, config, voice: platform.voice, rules: voiceRules });
  await app.register(voiceCallbackRoutes, {
    intakes,
    client,
    taskQueue: config.taskQueue,
    appKey: config.platform.credentials.appKey,
    appSecret: config.platform.credentials.appSecret,
    settings: config.processes.voice,
    rules: voiceRules,
    calls: store ? new VoiceCallStore(store.sql) : undefined,
  });
  await app.register(eventSubscriptionRoutes, {
    subscriptions: store ? new EventSubscriptionStore(store.sql, sealerOf(config.codecKeys)) : undefined,
    settings: config.events,
  });
  await app.register(codecRoutes, { codec, allowedOrigins: config.api.codecCorsOrigins });
  await app.register(uiRoutes);
  return app;
}
