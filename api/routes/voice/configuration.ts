// The application's voice configuration, passed through to the platform's configuration address: which numbers
// are assigned to the application, and where the platform sends its callbacks.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../errors.js';
import type { VoiceRouteOptions } from './index.js';
import { onPlatform, PLATFORM_STATUSES } from '../../platform-errors.js';
import { AssignBody, CallbackUrlsBody, CallbackUrlsView, NoContent, NumbersView, UnassignBody } from './schemas.js';

export const configurationRoutes: FastifyPluginAsyncTypebox<VoiceRouteOptions> = async (app, { voice }) => {
  app.get(
    '/v1/voice/numbers',
    {
      schema: {
        tags: ['voice'],
        summary: "The account's numbers with their capability (voice, sms) and the application each is assigned to",
        response: { 200: NumbersView, ...errorResponses(401, ...PLATFORM_STATUSES) },
      },
    },
    async () => ({ numbers: await onPlatform('the numbers', () => voice.numbers()) }),
  );

  app.post(
    '/v1/voice/numbers/assign',
    {
      schema: {
        tags: ['voice'],
        summary: "Assign numbers the account owns to this application (its calls then reach relayflow's rules)",
        body: AssignBody,
        response: { 204: NoContent, ...errorResponses(400, 401, ...PLATFORM_STATUSES) },
      },
    },
    async (req, reply) => {
      await onPlatform('the numbers', () => voice.assignNumbers(req.body.numbers, req.body.capability ?? 'voice'));
      return reply.status(204).send();
    },
  );

  app.post(
    '/v1/voice/numbers/unassign',
    {
      schema: {
        tags: ['voice'],
        summary: 'Take a number away from this application',
        body: UnassignBody,
        response: { 204: NoContent, ...errorResponses(400, 401, ...PLATFORM_STATUSES) },
      },
    },
    async (req, reply) => {
      await onPlatform(`number ${req.body.number}`, () => voice.unassignNumber(req.body.number, req.body.capability ?? 'voice'));
      return reply.status(204).send();
    },
  );

  app.get(
    '/v1/voice/callback-urls',
    {
      schema: {
        tags: ['voice'],
        summary: "Where the platform sends the application's voice callbacks (primary and fallback); empty when unset",
        response: { 200: CallbackUrlsView, ...errorResponses(401, ...PLATFORM_STATUSES) },
      },
    },
    async () => ({ ...(await onPlatform("the application's callback URLs", () => voice.callbackUrls())) }),
  );

  app.put(
    '/v1/voice/callback-urls',
    {
      schema: {
        tags: ['voice'],
        summary: "Set where the platform sends the application's voice callbacks",
        body: CallbackUrlsBody,
        response: { 204: NoContent, ...errorResponses(400, 401, ...PLATFORM_STATUSES) },
      },
    },
    async (req, reply) => {
      const { primary, fallback } = req.body;
      await onPlatform("the application's callback URLs", () => voice.setCallbackUrls({ primary, ...(fallback ? { fallback } : {}) }));
      return reply.status(204).send();
    },
  );
};
