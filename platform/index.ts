// Builds every platform client of a process from the validated config. Adding an interface area means
// one new client file and one line here.
import type { Tracer } from '@opentelemetry/api';
import type { PlatformConfig } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import { PlatformHttp } from './http.js';
import type { PlatformCallObserver } from './call-observer.js';
import { oauthTokenUrl, sharedTokenRegistry, type OAuthTokenRegistry, type OAuthTokenSource } from './auth/oauth.js';
import { SubprojectsClient } from './subprojects/client.js';
import { ProvisioningClient } from './provisioning/client.js';
import { VerificationClient } from './verification/client.js';
import { VoiceClient } from './voice/client.js';
import { SenderIdClient } from './senderid/client.js';
import { ApplicationSignedAuth } from './auth/application.js';
import { ConversationClient } from './conversation/client.js';
import { MmsClient } from './mms/client.js';

export interface PlatformClients {
  subprojects: SubprojectsClient;
  provisioning: ProvisioningClient;
  verification: VerificationClient;
  senderid: SenderIdClient;
  conversation: ConversationClient;
  mms: MmsClient;
  voice: VoiceClient;
  http: PlatformHttp;
  /** The OAuth token source of the configured key (shared with every other client of that key). */
  tokens: OAuthTokenSource;
}

export interface CreatePlatformClientsOptions {
  logger?: Logger;
  /** Defaults to the process-wide registry; tests pass their own. */
  tokenRegistry?: OAuthTokenRegistry;
  /** Told how each platform call ended (the API's and the worker's metrics). */
  onCall?: PlatformCallObserver;
  /** Each platform call a client span of this tracer (common/tracing.ts's tracerOf). */
  tracer?: Tracer;
}

/**
 * Builds every client, enabled area or not: clients only read their credentials when they send a request,
 * so a disabled area's empty credentials (see RELAYFLOW_AREAS) cost nothing until something calls it.
 */
export function createPlatformClients(config: PlatformConfig, opts: CreatePlatformClientsOptions = {}): PlatformClients {
  const { urls, credentials } = config;
  const http = new PlatformHttp({ timeoutMs: config.requestTimeoutMs, logger: opts.logger, onCall: opts.onCall, tracer: opts.tracer });
  const tokens = (opts.tokenRegistry ?? sharedTokenRegistry).get({
    http,
    tokenUrl: oauthTokenUrl(urls.auth),
    keyId: credentials.keyId,
    keySecret: credentials.keySecret,
  });
  return {
    http,
    tokens,
    subprojects: new SubprojectsClient({ http, baseUrl: urls.subprojects, tokens }),
    provisioning: new ProvisioningClient({ http, baseUrl: urls.provisioning, projectId: credentials.projectId, tokens }),
    verification: new VerificationClient({ http, baseUrl: urls.verification, auth: new ApplicationSignedAuth(credentials.appKey, credentials.appSecret) }),
    senderid: new SenderIdClient({ http, baseUrl: urls.senderid, projectId: credentials.projectId, tokens }),
    conversation: new ConversationClient({ http, urls: urls.conversation, projectId: credentials.projectId, tokens }),
    mms: new MmsClient({ http, baseUrl: urls.mms, apiKey: credentials.mmsApiKey }),
    voice: new VoiceClient({
      http,
      baseUrl: urls.voice,
      configUrl: urls.voiceConfig,
      auth: new ApplicationSignedAuth(credentials.appKey, credentials.appSecret),
      applicationKey: () => credentials.appKey,
    }),
  };
}

export * from './errors.js';
export type { PlatformCall } from './call-observer.js';
export { ProvisioningClient } from './provisioning/client.js';
// Everything else (the other clients, resource types such as Template or Registration, helpers) is imported
// from its own module, e.g. './provisioning/client.js' or './senderid/client.js'.
