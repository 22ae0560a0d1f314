// Callback configuration: GET / PUT {hmacSecret} -> {hmacSecret, projectId} (spec part F).
import type { FastifyInstance } from 'fastify';
import { AreaError } from '../../core/errors.js';
import { PROJECT, projectGuard, type ProjectParams } from '../../core/guards.js';
import { type SenderIdDeps } from './context.js';
import { bodyObject, unknownKeys, violations } from './validate.js';

export function callbackConfigRoutes(deps: SenderIdDeps) {
  const { store } = deps;
  return async (app: FastifyInstance) => {
    const preValidation = projectGuard(deps.ctx);
    const path = `${PROJECT}/callback-configuration`;

    app.get<{ Params: ProjectParams }>(path, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const hmacSecret = store.secret(projectId);
      if (hmacSecret === undefined) throw new AreaError(404, `Callback configuration of project ${projectId} not found`);
      return { hmacSecret, projectId };
    });

    app.put<{ Params: ProjectParams }>(path, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const body = bodyObject(request.body);
      const v = violations();
      unknownKeys(v, body, ['hmacSecret']);
      const s = body.hmacSecret;
      if (typeof s !== 'string' || s.length === 0) v.add('hmacSecret', 'hmacSecret is required', 'required');
      else if (s.length > 256) v.add('hmacSecret', 'hmacSecret must be at most 256 characters', 'maxLength');
      v.check('Invalid request');
      store.setSecret(projectId, s as string);
      return { hmacSecret: s, projectId };
    });
  };
}
