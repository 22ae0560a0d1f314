// The application's voice configuration, passed through to the platform's configuration address: which numbers
// are assigned to the application, and where the platform sends its callbacks.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { VoiceRouteOptions } from './index.js';
import { onPlatform, passThroughSchema } from '../../../api/platform-errors.js';
import { AssignBody, CallbackUrlsBody, CallbackUrlsView, NoContent, NumbersView, UnassignBody } from './schemas.js';

export const configurationRoutes: FastifyPluginAsyncTypebox<VoiceRouteOptions> = async (app, { voice }) => {
  app.get(
    '/v1/voice/numbers',
    {
      schema: passThroughSchema(
        'voice',
        "The account's numbers with their capability (voice, sms) and the application each is assigned to",
        {},
        { 200: NumbersView },
      ),
    },
    async () => ({ numbers: await onPlatform('the numbers', () => voice.numbers()) }),
  );

  app.post(
    '/v1/voice/numbers/assign',
    {
      schema: passThroughSchema(
        'voice',
        "Assign numbers the account owns to this application (its calls then reach relayflow's rules)",
        { body: AssignBody },
        { 204: NoContent },
      ),
    },
    async (req, reply) => {
      await onPlatform('the numbers', () => voice.assignNumbers(req.body.numbers, req.body.capability ?? 'voice'));
      return reply.status(204).send();
    },
  );

  app.post(
    '/v1/voice/numbers/unassign',
    {
      schema: passThroughSchema('voice', 'Take a number away from this application', { body: UnassignBody }, { 204: NoContent }),
    },
    async (req, reply) => {
      await onPlatform(`number ${req.body.number}`, () => voice.unassignNumber(req.body.number, req.body.capability ?? 'voice'));
      return reply.status(204).send();
    },
  );

  app.get(
    '/v1/voice/callback-urls',
    {
      schema: passThroughSchema(
        'voice',
        "Where the platform sends the application's voice callbacks (primary and fallback); empty when unset",
        {},
        { 200: CallbackUrlsView },
      ),
    },
    async () => ({ ...(await onPlatform("the application's callback URLs", () => voice.callbackUrls())) }),
  );

  app.put(
    '/v1/voice/callback-urls',
    {
      schema: passThroughSchema('voice', "Set where the platform sends the application's voice callbacks", { body: CallbackUrlsBody }, { 204: NoContent }),
    },
    async (req, reply) => {
      const { primary, fallback } = req.body;
      await onPlatform("the application's callback URLs", () => voice.setCallbackUrls({ primary, ...(fallback ? { fallback } : {}) }));
      return reply.status(204).send();
    },
  );
};
