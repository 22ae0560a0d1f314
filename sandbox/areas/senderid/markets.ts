// Markets, policies and templates (docs/senderid-wire.md "Markets", "Policy requirements").
import type { FastifyInstance } from 'fastify';
import { MARKET_NAMES, marketVersions, policyById, templateFile } from './catalogue.js';
import { PROJECT, projectGuard, type ProjectParams } from '../../core/guards.js';
import { type SenderIdDeps } from './context.js';
import { REGISTRATION_TYPES, type RegistrationType } from '../../../common/wire/senderid.js';
import { violations, notFound } from './validate.js';

type MarketQuery = { marketCode?: string; registrationType?: string; language?: string };

function checkQuery(q: MarketQuery): { marketCode: string | undefined; registrationType: RegistrationType } {
  const v = violations();
  if (q.marketCode !== undefined && !/^[A-Z]{2}$/.test(q.marketCode)) v.add('marketCode', 'marketCode must be an ISO code of two capital letters', 'pattern');
  if (q.registrationType !== undefined && !(REGISTRATION_TYPES as readonly string[]).includes(q.registrationType)) {
    v.add('registrationType', `registrationType must be one of ${REGISTRATION_TYPES.join(', ')}`, 'enum');
  }
  v.check('Invalid request');
  return { marketCode: q.marketCode, registrationType: (q.registrationType as RegistrationType | undefined) ?? 'ALPHANUMERIC_SENDER_ID' };
}

export function marketRoutes(deps: SenderIdDeps) {
  return async (app: FastifyInstance) => {
    const preValidation = projectGuard(deps.ctx);

    app.get<{ Params: ProjectParams; Querystring: MarketQuery }>(`${PROJECT}/markets/availability`, { preValidation }, async (request) => {
      const q = checkQuery(request.query);
      const codes = [...new Set(marketVersions(q.marketCode, q.registrationType).map((m) => m.marketCode))];
      return { markets: codes.map((marketCode) => ({ marketCode, marketName: MARKET_NAMES[marketCode] ?? marketCode })) };
    });

    app.get<{ Params: ProjectParams; Querystring: MarketQuery }>(`${PROJECT}/markets/details`, { preValidation }, async (request) => {
      const q = checkQuery(request.query);
      const marketVersionsFound = marketVersions(q.marketCode, q.registrationType);
      return { marketVersions: marketVersionsFound, totalSize: marketVersionsFound.length, nextPageToken: '' };
    });

    app.get<{ Params: ProjectParams & { policyId: string } }>(`${PROJECT}/policies/:policyId`, { preValidation }, async (request) => {
      const policy = policyById(request.params.policyId);
      if (!policy) throw notFound('Policy', request.params.policyId);
      return policy;
    });

    app.get<{ Params: ProjectParams & { policyId: string; definitionId: string } }>(
      `${PROJECT}/policies/:policyId/attachments/:definitionId/template`,
      { preValidation },
      async (request, reply) => {
        const policy = policyById(request.params.policyId);
        if (!policy) throw notFound('Policy', request.params.policyId);
        const def = policy.attachmentDefinitions.find((d) => d.id === request.params.definitionId);
        if (!def || !def.template) throw notFound('Template of attachment definition', request.params.definitionId);
        const file = templateFile(def);
        return reply.header('content-type', file.mimeType).header('content-disposition', `attachment; filename="${file.fileName}"`).send(file.bytes);
      },
    );
  };
}
