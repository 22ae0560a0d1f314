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
  senderId: SenderIdClient;
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
    senderId: new SenderIdClient({ http, baseUrl: urls.senderId, projectId: credentials.projectId, tokens }),
    conversation: new ConversationClient({ http, urls: urls.conversation, projectId: credentials.projectId, tokens }),
    mms: new MmsClient({ http, baseUrl: urls.mms, apiKey: credentials.mmsApiKey }),
    voice: new VoiceClient({
      http, baseUrl: urls.voice, configUrl: urls.voiceConfig, auth: new ApplicationSignedAuth(credentials.appKey, credentials.appSecret),
      applicationKey: () => credentials.appKey,
    }),
  };
}

export * from './errors.js';
export { PlatformHttp, type PlatformRequest, type PlatformResponse, type HttpMethod } from './http.js';
export type { PlatformCall, PlatformCallArea, PlatformCallErrorType, PlatformCallObserver, PlatformCallOutcome } from './call-observer.js';
export type { AuthStrategy, AuthRequest } from './auth/strategy.js';
export { OAuthTokenSource, OAuthTokenRegistry, OAuthBearerAuth, sharedTokenRegistry, oauthTokenUrl } from './auth/oauth.js';
export { BasicAuth } from './auth/basic.js';
export { ApplicationSignedAuth } from './auth/application.js';
export { ApiKeyAuth } from './auth/api-key.js';
export { SubprojectsClient, type Subproject, type SubprojectPage } from './subprojects/client.js';
// Provisioning resource types (Template, RcsSender, ...) are imported from './provisioning/client.js'.
export {
  ProvisioningClient,
  type ProvisioningClientOptions,
  PROVISIONING_ERROR_CODES,
  provisioningErrorDetails,
  isProvisioningError,
  type ProvisioningErrorDetails,
  type ProvisioningFieldError,
  CHATA_TRIGGERS,
  CHATB_TRIGGERS,
  RCS_TRIGGERS,
  PROVISIONING_TRIGGERS,
  isProvisioningTrigger,
  type ProvisioningTrigger,
  type ChataTrigger,
  type ChatbTrigger,
  type RcsTrigger,
  type ProvisioningWebhookEvent,
  type TemplateChannel,
  type TemplateState,
  type RejectionCode,
  type QualityScore,
  type RcsSenderState,
  type ChataSenderState,
  type ChatbSenderState,
} from './provisioning/client.js';
export {
  VerificationClient,
  type VerificationClientOptions,
  type VerificationMethod,
  type ReportableVerificationMethod,
  type VerificationStatusValue,
  type VerificationSource,
  type VerificationIdentity,
  type SmsCodeType,
  type StartVerificationRequest,
  type StartVerificationResponse,
  type StartVerificationResult,
  type SmsStartDetails,
  type FlashCallStartDetails,
  type CalloutStartDetails,
  type SeamlessStartDetails,
  type VerificationLink,
  type VerificationReport,
  type ReportResult,
  type VerificationStatus,
} from './verification/client.js';
// Sender ID resource types (Registration, Policy, ...) and helpers are imported from './senderid/client.js'.
export { SenderIdClient, type SenderIdClientOptions } from './senderid/client.js';
export { ConversationClient, type ConversationClientOptions } from './conversation/client.js';
export type { ConversationApp, SendMessageRequest, SentMessage } from './conversation/types.js';
export { MmsClient, type MmsClientOptions } from './mms/client.js';
export type { MmsMessage, MmsSlide, MmsSendRequest, MmsSendSavedRequest } from './mms/types.js';
export { classifySendError, type SendErrorClass, type SendErrorKind } from './send-errors.js';
