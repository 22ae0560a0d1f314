// Callouts: one process per callout, keyed by the caller's key (or a ULID), calling each destination and
// following every call through its callbacks to an outcome, with the caller's retries. A custom script is
// checked before anything starts: a script the process could not carry out is a 422 naming the field.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ulid } from 'ulid';
import { workflowIds, type ProcessKind } from '../../../contracts/ids.js';
import { stopCalloutUpdate, VOICE_CALLOUT_KIND, type VoiceCalloutInput, type VoiceRegion } from '../../../contracts/voice.js';
import { regionalVoiceUrl } from '../../../platform/voice/regions.js';
import { scriptViolations } from '../../../contracts/voice-script.js';
import { ApiError, errorResponses } from '../../errors.js';
import { startProcess } from '../../processes/start.js';
import { handleOf, runUpdate } from '../../processes/update.js';
import { ProcessId, ReasonBody, STARTED_RESPONSES } from '../../schemas.js';
import { listRoute, readRoute } from '../process-routes.js';
import type { VoiceRouteOptions } from './index.js';
import { SCRIPT_BODY_LIMIT, StartConferenceCallout, StartCustomCallout, StartTtsCallout, Stopped } from './schemas.js';

const KIND = VOICE_CALLOUT_KIND satisfies ProcessKind;
const KINDS: readonly ProcessKind[] = [KIND];
const self = (processId: string) => `/v1/voice/callouts/${encodeURIComponent(processId)}`;

type Common = {
  key?: string | undefined;
  cli?: string | undefined;
  locale?: string | undefined;
  region?: VoiceRegion | undefined;
  amd?: VoiceCalloutInput['amd'] | undefined;
  retry?: VoiceCalloutInput['retry'] | undefined;
  maxDurationSeconds?: number | undefined;
};

export const calloutRoutes: FastifyPluginAsyncTypebox<VoiceRouteOptions> = async (app, { client, processes, config }) => {
  const settings = config.processes.voice;

  async function start(kind: VoiceCalloutInput['kind'], b: Common, rest: Pick<VoiceCalloutInput, 'destinations' | 'text' | 'conference' | 'script'>) {
    const key = b.key ?? ulid();
    const region = b.region ?? 'global';
    const input: VoiceCalloutInput = {
      kind,
      key,
      region,
      baseUrl: regionalVoiceUrl(config.platform.urls.voice, region),
      checkEveryMs: settings.checkEveryMs,
      inDoubtWaitMs: settings.inDoubtWaitMs,
      ...rest,
      ...(b.cli ? { cli: b.cli } : {}),
      ...(b.locale ? { locale: b.locale } : {}),
      ...(b.amd ? { amd: { enabled: b.amd.enabled, ...(b.amd.onMachine ? { onMachine: b.amd.onMachine } : {}) } } : {}),
      ...(b.retry ? { retry: { delaysSeconds: b.retry.delaysSeconds, ...(b.retry.on ? { on: b.retry.on } : {}) } } : {}),
      ...(b.maxDurationSeconds ? { maxDurationSeconds: b.maxDurationSeconds } : {}),
    };
    // The same key is the same callout, ended or not: only a failed process may start again.
    return startProcess(client, {
      workflowType: 'voiceCallout',
      kind: KIND,
      processId: workflowIds[KIND](key),
      taskQueue: config.taskQueue,
      args: [input],
      reuse: 'after-failure',
      initialState: 'CALLING',
      self,
    });
  }

  app.post(
    '/v1/voice/callouts/tts',
    {
      schema: {
        tags: ['voice'],
        summary: 'Call a number and speak a text; the process follows the call to its outcome and retries as asked',
        body: StartTtsCallout,
        response: { ...STARTED_RESPONSES, ...errorResponses(400, 401) },
      },
    },
    async (req, reply) => {
      const { destination, text, ...common } = req.body;
      const r = await start('tts', common, { destinations: [destination], text });
      return reply.status(r.status).send(r.body);
    },
  );

  app.post(
    '/v1/voice/callouts/conference',
    {
      schema: {
        tags: ['voice'],
        summary: "Call up to 10 numbers into one conference (in the request's region); each call is followed and retried on its own",
        body: StartConferenceCallout,
        response: { ...STARTED_RESPONSES, ...errorResponses(400, 401) },
      },
    },
    async (req, reply) => {
      const { conferenceId, destinations, greeting, moh, ...common } = req.body;
      const r = await start('conference', common, { destinations, conference: { conferenceId, ...(greeting ? { greeting } : {}), ...(moh ? { moh } : {}) } });
      return reply.status(r.status).send(r.body);
    },
  );

  app.post(
    '/v1/voice/callouts/custom',
    {
      bodyLimit: SCRIPT_BODY_LIMIT,
      schema: {
        tags: ['voice'],
        summary: 'Call a number and, once answered, run a call script (play, connect a conference, menus); the script is checked before the call',
        body: StartCustomCallout,
        response: { ...STARTED_RESPONSES, ...errorResponses(400, 401, 422) },
      },
    },
    async (req, reply) => {
      const { destination, script, ...common } = req.body;
      const violations = scriptViolations(script, 'ace').map((v) => ({ field: `body.script.${v.field}`, rule: v.rule, message: v.message }));
      if (violations.length) throw new ApiError(422, 'validation_failed', violations.map((v) => `${v.field}: ${v.message}`).join('; '), violations);
      const r = await start('custom', common, { destinations: [destination], script });
      return reply.status(r.status).send(r.body);
    },
  );

  listRoute(app, processes, {
    path: '/v1/voice/callouts',
    tag: 'voice',
    kind: KIND,
    summary: 'List callout processes, optionally by state (CALLING, WAITING_RETRY, COMPLETED, FAILED, STOPPED)',
  });

  // The same list under each start route's path, which is also a process path (/v1/voice/callouts/{processId}):
  // GET there must mean something, as on /v1/campaigns/conversation. Callouts of every kind are one process kind.
  for (const segment of ['tts', 'conference', 'custom'] as const) {
    listRoute(app, processes, {
      path: `/v1/voice/callouts/${segment}`,
      tag: 'voice',
      kind: KIND,
      summary: 'List callout processes of every kind (as GET /v1/voice/callouts), optionally by state',
    });
  }

  readRoute(
    app,
    { client, processes },
    {
      path: '/v1/voice/callouts/:processId',
      tag: 'voice',
      kinds: KINDS,
      what: 'voice callout',
      summary: 'A callout: state and history, and per destination every attempt with its call ID, callbacks answered and outcome',
    },
  );

  app.post(
    '/v1/voice/callouts/:processId/stop',
    {
      schema: {
        tags: ['voice'],
        summary: 'Stop a callout: pending retries are dropped and calls under way hung up',
        params: Type.Object({ processId: ProcessId }),
        body: Type.Optional(ReasonBody),
        response: { 200: Stopped, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (req) => {
      const handle = handleOf(client, req.params.processId, KINDS, 'voice callout');
      const reason = req.body?.reason;
      return runUpdate(client, handle, stopCalloutUpdate, [reason ? { reason } : {}], { what: 'voice callout', waitMs: 10_000 });
    },
  );
};
