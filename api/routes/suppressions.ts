// Each app's suppression list (store/suppressions.ts): the numbers no campaign on that app sends to. Replies fill it
// (STOP and its kin; START takes a number off), and these routes read it and add to or remove from it. Reading it
// needs read-only (like a campaign's recipients); a change needs operator (api/plugins/scopes.ts). A change here is a
// person's decision: it is applied whatever a reply decided before (docs/campaigns.md "Replies and consent").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { SuppressionStore } from '../../store/suppressions.js';
import { ApiError, badRequest, errorResponses, notFound } from '../errors.js';
import { e164, Paging, PhoneNumber } from '../schemas.js';
import { PageTokens } from '../processes/find.js';

export interface SuppressionRouteOptions {
  /** Without the store, every route answers 503. */
  suppressions?: SuppressionStore;
  pageTokenKey: Buffer;
}

const AppParams = Type.Object({ appId: Type.String({ pattern: '^[0-9A-HJKMNP-TV-Z]{26}$', maxLength: 26, description: 'The conversation app (a ULID)' }) });
const NumberParams = Type.Object({ ...AppParams.properties, number: PhoneNumber('The number, in international format (+ and country code; %2B in a URL)') });

const Entry = Type.Object({
  number: Type.String({ description: 'E.164' }),
  source: Type.Enum(['reply', 'api'], { description: 'reply: the recipient sent an opt-out word; api: added through this API' }),
  since: Type.String({ format: 'date-time', description: "When it was decided (the reply's time, or the request's)" }),
});

const Page = Type.Object({ suppressions: Type.Array(Entry), nextPageToken: Type.String({ description: 'Empty on the last page' }) });

export const suppressionRoutes: FastifyPluginAsyncTypebox<SuppressionRouteOptions> = async (app, { suppressions, pageTokenKey }) => {
  const store = (): SuppressionStore => {
    if (!suppressions) throw new ApiError(503, 'store_unavailable', 'suppression lists need the store: set RELAYFLOW_DATABASE_URL for the API and the workers');
    return suppressions;
  };
  const tokens = new PageTokens(pageTokenKey);
  const common = { tags: ['campaigns'] };

  app.get(
    '/v1/apps/:appId/suppressions',
    {
      schema: {
        ...common,
        operationId: 'listSuppressions',
        summary: "The app's suppression list: numbers no campaign on the app sends to",
        params: AppParams,
        querystring: Type.Object(Paging, { additionalProperties: false }),
        response: { 200: Page, ...errorResponses(400, 401, 403, 503) },
      },
    },
    async (req) => {
      let after: string | undefined;
      if (req.query.pageToken) {
        after = tokens.decode(req.query.pageToken)?.toString('utf8');
        if (!after) throw badRequest('query.pageToken', 'page_token', 'is not a token this API gave out: pass the nextPageToken of the previous page as it is');
      }
      const page = await store().list(req.params.appId, { limit: req.query.pageSize ?? 50, ...(after ? { after } : {}) });
      return { suppressions: page.suppressions, nextPageToken: page.next ? tokens.encode(Buffer.from(page.next, 'utf8')) : '' };
    },
  );

  app.put(
    '/v1/apps/:appId/suppressions/:number',
    {
      schema: {
        ...common,
        operationId: 'addSuppression',
        summary: 'Suppress a number for the app (idempotent): no campaign on the app sends to it until it is removed or replies START',
        params: NumberParams,
        response: { 200: Entry, 201: Entry, ...errorResponses(400, 401, 403, 503) },
      },
    },
    async (req, reply) => {
      const number = e164(req.params.number, 'path.number');
      const r = await store().apply({ appId: req.params.appId, number, suppressed: true, source: 'api' });
      const entry = await store().get(req.params.appId, number);
      return reply.code(r.changed ? 201 : 200).send(entry!);
    },
  );

  app.delete(
    '/v1/apps/:appId/suppressions/:number',
    {
      schema: {
        ...common,
        operationId: 'removeSuppression',
        summary: "Take a number off the app's suppression list: campaigns send to it again",
        params: NumberParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 503) },
      },
    },
    async (req, reply) => {
      const number = e164(req.params.number, 'path.number');
      if (!(await store().get(req.params.appId, number))) throw notFound(`number on the suppression list of app ${req.params.appId}`);
      await store().apply({ appId: req.params.appId, number, suppressed: false, source: 'api' });
      return reply.code(204).send(null);
    },
  );
};
