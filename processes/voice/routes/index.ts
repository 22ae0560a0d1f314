// Voice (area A): callouts followed to an outcome by their processes (tts, conference, custom scripts), and thin
// pass-throughs to the platform for conferences, calls, numbers and callback URLs; the incoming-call rules the
// callback intake applies to each ICE live in the SQL store.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client } from '@temporalio/client';
import type { Config } from '../../../common/config.js';
import type { VoiceClient } from '../../../platform/voice/client.js';
import type { VoiceRuleStore } from '../../../store/index.js';
import type { ProcessService } from '../../../api/processes/find.js';
import { calloutRoutes } from './callouts.js';
import { callRoutes } from './calls.js';
import { conferenceRoutes } from './conferences.js';
import { configurationRoutes } from './configuration.js';
import { incomingRuleRoutes } from './incoming-rules.js';

export interface VoiceRouteOptions {
  client: Client;
  processes: ProcessService;
  config: Pick<Config, 'taskQueue' | 'platform' | 'processes'>;
  voice: VoiceClient;
  /** The incoming-call rules; without a store their routes answer 503. */
  rules?: VoiceRuleStore | undefined;
}

export const voiceRoutes: FastifyPluginAsyncTypebox<VoiceRouteOptions> = async (app, opts) => {
  await app.register(calloutRoutes, opts);
  await app.register(conferenceRoutes, opts);
  await app.register(callRoutes, opts);
  await app.register(configurationRoutes, opts);
  await app.register(incomingRuleRoutes, opts);
};
