// Callouts: one process per callout, keyed by the caller's key (or a ULID), calling each destination and
// following every call through its callbacks to an outcome, with the caller's retries. A custom script is
// checked before anything starts: a script the process could not carry out is a 422 naming the field.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ulid } from 'ulid';
import { workflowIds, type ProcessKind } from '../../kinds.js';
import { stopCalloutUpdate, VOICE_CALLOUT_KIND, type VoiceCalloutInput, type VoiceRegion } from '../contract.js';
import { regionalVoiceUrl } from '../../../platform/voice/regions.js';
import { scriptViolations } from '../call-script.js';
import type { BuiltProcess } from '../../../api/processes/start.js';
import { ReasonBody } from '../../../api/schemas.js';
import { processRouter } from '../../../api/routes/process-routes.js';
import type { VoiceRouteOptions } from './index.js';
import { SCRIPT_BODY_LIMIT, StartConferenceCallout, StartCustomCallout, StartTtsCallout, Stopped } from './schemas.js';

const KIND = VOICE_CALLOUT_KIND satisfies ProcessKind;

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
  const callouts = processRouter(app, { client, processes, taskQueue: config.taskQueue }, '/v1/voice/callouts', 'voice callout');

  function built(
    kind: VoiceCalloutInput['kind'],
    b: Common,
    rest: Pick<VoiceCalloutInput, 'destinations' | 'text' | 'conference' | 'script'>,
  ): BuiltProcess<VoiceCalloutInput> {
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
    return { errors: [], kind: KIND, processId: workflowIds[KIND](key), input };
  }
  // The same key is the same callout, ended or not: only a failed process may start again.
  const byKey = { errors: [400, 401], reuse: 'after-failure', initialState: 'CALLING' } as const;

  callouts.start({
    segment: 'tts',
    summary: 'Call a number and speak a text; the process follows the call to its outcome and retries as asked',
    body: StartTtsCallout,
    ...byKey,
    build: ({ body: { destination, text, ...common } }) => built('tts', common, { destinations: [destination], text }),
  });

  callouts.start({
    segment: 'conference',
    summary: "Call up to 10 numbers into one conference (in the request's region); each call is followed and retried on its own",
    body: StartConferenceCallout,
    ...byKey,
    build: ({ body: { conferenceId, destinations, greeting, moh, ...common } }) =>
      built('conference', common, { destinations, conference: { conferenceId, ...(greeting ? { greeting } : {}), ...(moh ? { moh } : {}) } }),
  });

  callouts.start({
    segment: 'custom',
    bodyLimit: SCRIPT_BODY_LIMIT,
    summary: 'Call a number and, once answered, run a call script (play, connect a conference, menus); the script is checked before the call',
    body: StartCustomCallout,
    ...byKey,
    errors: [400, 401, 422],
    build: ({ body: { destination, script, ...common } }) => ({
      ...built('custom', common, { destinations: [destination], script }),
      errors: scriptViolations(script, 'ace').map((v) => ({ field: `body.script.${v.field}`, rule: v.rule, message: v.message })),
    }),
  });

  // At /v1/voice/callouts, and the same list under each start route's path, which is also a process path
  // (/v1/voice/callouts/{processId}): GET there must mean something. Callouts of every kind are one process kind.
  callouts.list({
    summary: (segment) =>
      segment
        ? 'List callout processes of every kind (as GET /v1/voice/callouts), optionally by state'
        : 'List callout processes, optionally by state (CALLING, WAITING_RETRY, COMPLETED, FAILED, STOPPED)',
  });

  callouts.read({ summary: 'A callout: state and history, and per destination every attempt with its call ID, callbacks answered and outcome' });

  callouts.action({
    action: 'stop',
    summary: 'Stop a callout: pending retries are dropped and calls under way hung up',
    body: ReasonBody,
    optionalBody: true,
    // The update carries no operation ID: stopping twice stops once.
    idempotencyKey: false,
    responses: { 200: Stopped },
    errors: [400, 401, 404, 409],
    update: stopCalloutUpdate,
    request: (req) => (req.body?.reason ? { reason: req.body.reason } : {}),
    answer: (outcome) => outcome,
    waitMs: 10_000,
  });
};
