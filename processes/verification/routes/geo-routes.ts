// The geo permissions' routes: read the rules (read-only), replace those set through the API (admin), and ask
// what a start would be told (read-only). The rules' shape is the schema's, so a bad rule is a 400 naming its field.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { describeGeoDecision, GEO_ACTIONS, GEO_COUNTRIES, GEO_NUMBER_TYPES, GEO_RULE_ID_PATTERN, MAX_GEO_RULES } from '../../../common/verification-geo.js';
import { VERIFICATION_METHODS } from '../contract.js';
import type { GeoRulesState } from '../../../store/index.js';
import { currentActor } from '../../../api/plugins/actor.js';
import { errorResponses, invalid } from '../../../api/errors.js';
import { e164, PhoneNumber } from '../../../api/schemas.js';
import type { GeoRules } from './geo-rules.js';
import { verification } from '../verification/kind.js';

const PATH = '/v1/verification-geo-rules';

const Action = Type.Enum([...GEO_ACTIONS], { description: 'allow or block' });
const Method = Type.Enum([...VERIFICATION_METHODS], { description: 'sms, flashcall, callout (Phone Call) or seamless (Data)' });

const GeoRuleSchema = Type.Object(
  {
    id: Type.String({ pattern: GEO_RULE_ID_PATTERN, description: 'Named in every refusal the rule causes, and in the metric' }),
    action: Action,
    countries: Type.Optional(
      Type.Array(Type.Enum([...GEO_COUNTRIES]), {
        minItems: 1,
        maxItems: GEO_COUNTRIES.length,
        description: 'ISO 3166-1 alpha-2 (GB, not UK); absent: any country',
      }),
    ),
    numberTypes: Type.Optional(
      Type.Array(Type.Enum([...GEO_NUMBER_TYPES]), {
        minItems: 1,
        maxItems: GEO_NUMBER_TYPES.length,
        description: "libphonenumber's types, matched exactly (+1 numbers are fixed_line_or_mobile); absent: any type",
      }),
    ),
    methods: Type.Optional(Type.Array(Method, { minItems: 1, maxItems: VERIFICATION_METHODS.length, description: 'Absent: every method' })),
    note: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

const RulesBody = Type.Object(
  {
    rules: Type.Array(GeoRuleSchema, {
      maxItems: MAX_GEO_RULES,
      description: 'Checked in order before the configured rules; the first that matches decides. Replaces the whole list.',
    }),
    defaultAction: Type.Optional(Type.Enum([...GEO_ACTIONS], { description: 'When no rule matches; absent: RELAYFLOW_VERIFICATION_GEO_DEFAULT' })),
    expectedVersion: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Refused (409 version_conflict) unless the rules are still at this version' }),
    ),
  },
  { additionalProperties: false },
);

const RulesView = Type.Object({
  version: Type.Integer({ description: 'Of the rules set through the API: 0 before the first change' }),
  updatedAt: Type.Optional(Type.String({ format: 'date-time' })),
  updatedBy: Type.Optional(Type.String({ description: 'The API key ID that made the last change' })),
  rules: Type.Array(GeoRuleSchema, { description: 'Set through the API, checked first' }),
  defaultAction: Type.Optional(Action),
  configured: Type.Object({
    rules: Type.Array(GeoRuleSchema, { description: 'RELAYFLOW_VERIFICATION_GEO_RULES, checked after the API rules' }),
    defaultAction: Action,
  }),
  effectiveDefault: Action,
  cacheSeconds: Type.Number({ description: 'A change reaches every API instance within this many seconds' }),
});

const DecisionQuery = Type.Object({ identity: PhoneNumber(), method: Method }, { additionalProperties: false });
const DecisionView = Type.Object({
  allowed: Type.Boolean(),
  method: Type.String(),
  country: Type.Optional(Type.String({ description: 'ISO 3166-1 alpha-2; absent for numbers of no country' })),
  callingCode: Type.String(),
  numberType: Type.String(),
  rule: Type.Optional(Type.Object({ id: Type.String(), source: Type.String({ description: 'api or config' }), action: Action })),
  message: Type.String(),
});

export const geoRuleRoutes: FastifyPluginAsyncTypebox<{ geo: GeoRules; waitMs: number }> = async (app, { geo, waitMs }) => {
  const view = (state: GeoRulesState) => {
    const set = geo.ruleSet(state);
    return {
      version: state.version,
      ...(state.updatedAt ? { updatedAt: new Date(state.updatedAt).toISOString() } : {}),
      ...(state.updatedBy ? { updatedBy: state.updatedBy } : {}),
      rules: state.rules,
      ...(state.defaultAction ? { defaultAction: state.defaultAction } : {}),
      configured: { rules: geo.settings.rules, defaultAction: geo.settings.defaultAction },
      effectiveDefault: set.defaultAction,
      cacheSeconds: geo.settings.cacheMs / 1000,
    };
  };

  app.get(
    PATH,
    {
      schema: {
        tags: [verification.collection.tag],
        summary: "The geo permissions: the rules set through the API (read from where they are kept, not this instance's cache), then the configured ones",
        response: { 200: RulesView, ...errorResponses(401) },
      },
    },
    async () => view(await geo.read(Date.now() + waitMs)),
  );

  app.put(
    PATH,
    {
      config: { scope: 'admin' },
      schema: {
        tags: [verification.collection.tag],
        summary: 'Replace the geo permissions set through the API (admin); every API instance applies them within cacheSeconds',
        body: RulesBody,
        response: { 200: RulesView, ...errorResponses(400, 401, 409, 422) },
      },
    },
    async (req) => {
      const { rules, defaultAction, expectedVersion } = req.body;
      const seen = new Map<string, number>();
      const duplicates = rules.flatMap((r, i) => {
        const first = seen.get(r.id);
        if (first === undefined) seen.set(r.id, i);
        return first === undefined ? [] : [{ field: `body.rules.${i}.id`, rule: 'unique', message: `"${r.id}" is also the id of body.rules.${first}` }];
      });
      if (duplicates.length) throw invalid(duplicates);
      const actor = currentActor();
      const state = await geo.set(
        {
          rules,
          ...(defaultAction ? { defaultAction } : {}),
          ...(expectedVersion !== undefined ? { expectedVersion } : {}),
          ...(actor ? { actor } : {}),
        },
        Date.now() + waitMs,
      );
      req.log.info({ version: state.version, rules: state.rules.length, defaultAction: state.defaultAction }, 'verification geo rules changed');
      return view(state);
    },
  );

  app.get(
    `${PATH}/decision`,
    {
      schema: {
        tags: [verification.collection.tag],
        summary: 'What a start of this method to this number would be told now, and by which rule (as this instance decides: its cached rules)',
        querystring: DecisionQuery,
        response: { 200: DecisionView, ...errorResponses(400, 401) },
      },
    },
    async (req) => {
      const identity = e164(req.query.identity, 'query.identity');
      const d = await geo.decide(identity, req.query.method, Date.now() + waitMs);
      return {
        allowed: d.allowed,
        method: d.method,
        ...(d.facts.country ? { country: d.facts.country } : {}),
        callingCode: d.facts.callingCode,
        numberType: d.facts.numberType,
        ...(d.rule ? { rule: d.rule } : {}),
        message: describeGeoDecision(d),
      };
    },
  );
};
