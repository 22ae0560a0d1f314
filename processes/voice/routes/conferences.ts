// Conferences, passed through to the platform on the address of the conference's region (a conference lives in
// one region: on another region's address it is not found).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { regionalVoiceUrl } from '../../../platform/voice/regions.js';
import type { VoiceRouteOptions } from './index.js';
import { onPlatform, passThroughSchema, platformIds } from '../../../api/platform-errors.js';
import { CallId, ConferenceId, ConferenceView, NoContent, ParticipantCommandBody, RegionQuery } from './schemas.js';

export const conferenceRoutes: FastifyPluginAsyncTypebox<VoiceRouteOptions> = async (app, { config, voice }) => {
  const at = (region: Parameters<typeof regionalVoiceUrl>[1] | undefined) => {
    const r = region ?? 'global';
    return { region: r, baseUrl: regionalVoiceUrl(config.platform.urls.voice, r) };
  };
  const ConferenceParams = Type.Object({ conferenceId: ConferenceId });
  const ParticipantParams = Type.Object({ conferenceId: ConferenceId, callId: CallId });

  app.get(
    '/v1/voice/conferences/:conferenceId',
    {
      schema: passThroughSchema(
        'voice',
        "A conference's participants (call ID, caller ID, seconds in it, muted, on hold), from the region's address",
        { params: ConferenceParams, querystring: RegionQuery },
        { 200: ConferenceView },
      ),
    },
    async (req) => {
      const { conferenceId } = req.params;
      platformIds({ conference: conferenceId });
      const { region, baseUrl } = at(req.query.region);
      const { participants } = await onPlatform(`conference ${conferenceId} in region ${region}`, () => voice.conference(conferenceId, { baseUrl }));
      return { conferenceId, region, participants };
    },
  );

  app.post(
    '/v1/voice/conferences/:conferenceId/participants/:callId/commands',
    {
      schema: passThroughSchema(
        'voice',
        'Mute, unmute, hold or resume one participant of a conference',
        { params: ParticipantParams, querystring: RegionQuery, body: ParticipantCommandBody },
        { 204: NoContent },
      ),
    },
    async (req, reply) => {
      const { conferenceId, callId } = req.params;
      platformIds({ conference: conferenceId, call: callId });
      const { region, baseUrl } = at(req.query.region);
      const { command, moh } = req.body;
      await onPlatform(`participant ${callId} of conference ${conferenceId} in region ${region}`, () =>
        voice.manageParticipant(conferenceId, callId, command, { baseUrl, ...(moh ? { moh } : {}) }),
      );
      return reply.status(204).send();
    },
  );

  app.delete(
    '/v1/voice/conferences/:conferenceId/participants/:callId',
    {
      schema: passThroughSchema(
        'voice',
        'Remove one participant from a conference (its call ends)',
        { params: ParticipantParams, querystring: RegionQuery },
        { 204: NoContent },
      ),
    },
    async (req, reply) => {
      const { conferenceId, callId } = req.params;
      platformIds({ conference: conferenceId, call: callId });
      const { region, baseUrl } = at(req.query.region);
      await onPlatform(`participant ${callId} of conference ${conferenceId} in region ${region}`, () =>
        voice.removeParticipant(conferenceId, callId, { baseUrl }),
      );
      return reply.status(204).send();
    },
  );

  app.delete(
    '/v1/voice/conferences/:conferenceId/participants',
    {
      schema: passThroughSchema(
        'voice',
        'Remove every participant from a conference (their calls end)',
        { params: ConferenceParams, querystring: RegionQuery },
        { 204: NoContent },
      ),
    },
    async (req, reply) => {
      const { conferenceId } = req.params;
      platformIds({ conference: conferenceId });
      const { region, baseUrl } = at(req.query.region);
      await onPlatform(`conference ${conferenceId} in region ${region}`, () => voice.removeAllParticipants(conferenceId, { baseUrl }));
      return reply.status(204).send();
    },
  );
};
