// The caller's own key: its ID and scope, so a client (the audit page) offers only the actions the key may take.
// Never the key itself, and nothing about other keys.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { SCOPES } from '../../common/api-keys.js';
import { errorResponses } from '../errors.js';

const KeyView = Type.Object(
  {
    keyId: Type.String({ description: "The key's ID (the first 12 hex digits of its SHA-256), as in logs and the audit" }),
    scope: Type.Enum([...SCOPES], { description: `The key's scope; each includes the ones before it: ${SCOPES.join(' < ')}` }),
    tenant: Type.Optional(Type.String({ description: "The one customer the key acts for; absent: every customer's processes" })),
  },
  { additionalProperties: false },
);

export const keyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/keys/me',
    {
      schema: {
        tags: ['keys'],
        operationId: 'readOwnKey',
        summary: "The calling key's ID, scope and tenant (what it may do: read-only reads, operator also starts and changes processes, admin also configures)",
        response: { 200: KeyView, ...errorResponses(401) },
      },
    },
    // The auth hook answered 401 already when there is no recognised key.
    async (req) => ({ keyId: req.apiKey!.keyId, scope: req.apiKey!.scope, ...(req.apiKey!.tenant ? { tenant: req.apiKey!.tenant } : {}) }),
  );
};
