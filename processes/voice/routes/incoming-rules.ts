// What an incoming call does, by the rule's key (the number called, the in-app user calling or called, or
// `default`: contracts/voice-rules.ts): a CallScript the voice callback intake hands to the call's process
// when the ICE comes. Kept in the SQL store; a script the process could not carry out
// in answer to an ICE is a 422 naming the field, and nothing is stored.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type, { type Static } from 'typebox';
import type { IncomingRule } from '../contract.js';
import type { VoiceRuleStore } from '../../../store/index.js';
import { scriptViolations } from '../call-script.js';
import { ApiError, errorResponses, notFound, storeRequired } from '../../../api/errors.js';
import type { VoiceRouteOptions } from './index.js';
import { IncomingRuleView, NoContent, RuleBody, RuleNumber, SCRIPT_BODY_LIMIT } from './schemas.js';
import { voiceCallout } from '../voice-callout/kind.js';

export const incomingRuleRoutes: FastifyPluginAsyncTypebox<VoiceRouteOptions> = async (app, { rules: maybeRules }) => {
  const rules = storeRequired<VoiceRuleStore>(maybeRules, 'voice_rules_unavailable', 'the incoming-call rules need the SQL store');
  const Params = Type.Object({ number: RuleNumber });
  // Every stored script passed RuleBody's schema on its way in.
  const view = (rule: IncomingRule) => rule as Static<typeof IncomingRuleView>;

  app.get(
    '/v1/voice/incoming-rules',
    {
      schema: {
        tags: [voiceCallout.collection.tag],
        summary: 'Every incoming-call rule: the script a call to each number, from or to each in-app user, runs (default: calls no other rule matches)',
        response: { 200: Type.Object({ rules: Type.Array(IncomingRuleView) }), ...errorResponses(401) },
      },
    },
    async () => ({ rules: (await rules().list()).map(view) }),
  );

  app.get(
    '/v1/voice/incoming-rules/:number',
    {
      schema: {
        tags: [voiceCallout.collection.tag],
        summary: 'The incoming-call rule of one key: a number, user:<id>, to-user:<id> or default',
        params: Params,
        response: { 200: IncomingRuleView, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const rule = await rules().get(req.params.number);
      if (!rule) throw notFound(`the incoming-call rule of ${req.params.number}`);
      return view(rule);
    },
  );

  app.put(
    '/v1/voice/incoming-rules/:number',
    {
      bodyLimit: SCRIPT_BODY_LIMIT,
      schema: {
        tags: [voiceCallout.collection.tag],
        summary:
          'Set what a call to this number, from (user:<id>) or to (to-user:<id>) this in-app user, or any call no other rule matches (default) does; the script is checked for ICE first',
        params: Params,
        body: RuleBody,
        response: { 200: IncomingRuleView, ...errorResponses(400, 401, 422) },
      },
    },
    async (req) => {
      const { script } = req.body;
      const violations = scriptViolations(script, 'ice').map((v) => ({ field: `body.script.${v.field}`, rule: v.rule, message: v.message }));
      if (violations.length) throw new ApiError(422, 'validation_failed', violations.map((v) => `${v.field}: ${v.message}`).join('; '), violations);
      return view(await rules().put({ number: req.params.number, script }));
    },
  );

  app.delete(
    '/v1/voice/incoming-rules/:number',
    {
      schema: {
        tags: [voiceCallout.collection.tag],
        summary: 'Remove the rule of a key: its calls then follow the next rule that matches them, else default (or, without one, are refused)',
        params: Params,
        response: { 204: NoContent, ...errorResponses(400, 401, 404) },
      },
    },
    async (req, reply) => {
      if (!(await rules().delete(req.params.number))) throw notFound(`the incoming-call rule of ${req.params.number}`);
      return reply.status(204).send();
    },
  );
};
