// Calls, passed through to the platform on the address that manages the call: the region given; else, for an
// incoming call relayflow follows, the address its ICE gave (the process keeps it as `callingBase`); else the
// global address. What the platform would refuse for certain is refused here first, naming the field.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { legInstructionViolations } from '../../../common/wire/voice-svaml.js';
import { workflowIds } from '../../kinds.js';
import { VOICE_INCOMING_KIND, type Svaml, type VoiceIncomingDetails, type VoiceRegion } from '../contract.js';
import { regionalVoiceUrl } from '../../../platform/voice/regions.js';
import { ApiError, type ErrorDetail } from '../../../api/errors.js';
import { callTemporal } from '../../../api/processes/temporal-errors.js';
import type { VoiceRouteOptions } from './index.js';
import { onPlatform, passThroughSchema, platformIds } from '../../../api/platform-errors.js';
import { CallId, CallInfoView, CallLegParam, CallUpdateBody, LegUpdateBody, MANAGE_CALL_ACTIONS, NoContent, CallRegionQuery } from './schemas.js';

const invalid = (details: ErrorDetail[]) => new ApiError(422, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);

export const callRoutes: FastifyPluginAsyncTypebox<VoiceRouteOptions> = async (app, { client, processes, config, voice }) => {
  /** Where the call is managed (undefined: the client's global address). */
  async function baseUrlOf(callId: string, region: VoiceRegion | undefined): Promise<string | undefined> {
    platformIds({ call: callId });
    if (region) return regionalVoiceUrl(config.platform.urls.voice, region);
    const processId = workflowIds[VOICE_INCOMING_KIND](callId);
    try {
      const view = await callTemporal(client, processId, () => processes.get(processId, VOICE_INCOMING_KIND), {
        what: 'voice incoming call process',
        waitMs: 5_000,
      });
      const base = (view.details as Partial<VoiceIncomingDetails>).callingBase;
      return typeof base === 'string' && base ? base : undefined;
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) return undefined;
      throw err;
    }
  }

  const CallParams = Type.Object({ callId: CallId });

  app.get(
    '/v1/voice/calls/:callId',
    {
      schema: passThroughSchema(
        'voice',
        'A call as the platform has it: from, to, status (ONGOING, FINAL), result, reason, duration',
        { params: CallParams, querystring: CallRegionQuery },
        { 200: CallInfoView },
      ),
    },
    async (req) => {
      const { callId } = req.params;
      const baseUrl = await baseUrlOf(callId, req.query.region);
      return { ...(await onPlatform(`call ${callId}`, () => voice.getCall(callId, baseUrl ? { baseUrl } : {}))) };
    },
  );

  app.patch(
    '/v1/voice/calls/:callId',
    {
      schema: passThroughSchema(
        'voice',
        `Manage a connected call with SVAML: instructions, then ${MANAGE_CALL_ACTIONS.join(', ')}`,
        { params: CallParams, querystring: CallRegionQuery, body: CallUpdateBody },
        { 204: NoContent },
      ),
    },
    async (req, reply) => {
      const { callId } = req.params;
      const body = req.body;
      const problems: ErrorDetail[] = [];
      body.instructions?.forEach((ins, i) => {
        // `answer` answers a ringing call (ICE only); a call that can be managed is connected already.
        if (ins.name === 'answer') problems.push({ field: `body.instructions[${i}].name`, rule: 'legal', message: 'answer is only allowed in answer to ICE' });
      });
      if (!MANAGE_CALL_ACTIONS.includes(body.action.name)) {
        problems.push({
          field: 'body.action.name',
          rule: 'legal',
          message: `${body.action.name} cannot manage a call; one of ${MANAGE_CALL_ACTIONS.join(', ')}`,
        });
      }
      if (problems.length) throw invalid(problems);
      const baseUrl = await baseUrlOf(callId, req.query.region);
      await onPlatform(`call ${callId}`, () => voice.updateCall(callId, body as Svaml, baseUrl ? { baseUrl } : {}));
      return reply.status(204).send();
    },
  );

  app.patch(
    '/v1/voice/calls/:callId/legs/:leg',
    {
      schema: passThroughSchema(
        'voice',
        'Play to one leg of a connected call (caller, callee or both): say and playFiles only',
        { params: Type.Object({ callId: CallId, leg: CallLegParam }), querystring: CallRegionQuery, body: LegUpdateBody },
        { 204: NoContent },
      ),
    },
    async (req, reply) => {
      const { callId, leg } = req.params;
      const { instructions } = req.body;
      const violations = legInstructionViolations(instructions);
      if (violations.length) {
        throw invalid(
          violations.map((v) => {
            const m = /^(instructions(?:\[\d+\])?(?:\.name)?): (.*)$/.exec(v);
            return { field: `body.${m?.[1] ?? 'instructions'}`, rule: 'legal', message: m?.[2] ?? v };
          }),
        );
      }
      const baseUrl = await baseUrlOf(callId, req.query.region);
      await onPlatform(`call ${callId}`, () => voice.updateCallLeg(callId, leg, instructions as Svaml['instructions'], baseUrl ? { baseUrl } : {}));
      return reply.status(204).send();
    },
  );
};
