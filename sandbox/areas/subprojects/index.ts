// Area E, subprojects: create, list (paginated), get. A subproject is listed and readable at once; the
// parent's key may use it (a request for its project in any OAuth area) only once subprojectReadyAfterMs has
// passed since its creation (spec: up to 30 s), before that such a request is refused 403 (core/auth-oauth.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import type { SandboxContext } from '../../core/context.js';
import { AreaError } from '../../core/errors.js';
import { projectGuard } from '../../core/guards.js';
import { authOf } from '../../core/request-state.js';
import { invalidArgument } from '../../core/validation.js';
import type { SandboxArea } from '../../core/area.js';
import { SubprojectStore } from './store.js';

const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 100;

const ParentParams = Type.Object({ parentProjectId: Type.String({ minLength: 1 }) });
const ItemParams = Type.Object({ parentProjectId: Type.String({ minLength: 1 }), subprojectId: Type.String({ minLength: 1 }) });
const CreateBody = Type.Object({ displayName: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
const ListQuery = Type.Object({
  pageSize: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PAGE_SIZE })),
  pageToken: Type.Optional(Type.String()),
});

/** Opaque to clients: the parent and the offset, so a token cannot be replayed on another parent. */
function encodePageToken(parent: string, offset: number): string {
  return Buffer.from(JSON.stringify({ p: parent, o: offset })).toString('base64url');
}

function decodePageToken(parent: string, token: string): number {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { p?: unknown; o?: unknown };
    if (t.p === parent && Number.isInteger(t.o) && (t.o as number) >= 0) return t.o as number;
  } catch {
    // fall through to the 400
  }
  throw invalidArgument([{ field: 'pageToken', description: 'is not a valid page token' }], 'querystring');
}

function routes(ctx: SandboxContext, store: SubprojectStore): FastifyPluginAsyncTypebox {
  return async (app) => {
    const guard = projectGuard(ctx, { param: 'parentProjectId' });
    const base = '/v1alpha1/projects/:parentProjectId/subprojects';

    app.post(base, { preValidation: guard, schema: { params: ParentParams, body: CreateBody } }, async (request) => {
      const { parentProjectId } = request.params;
      // The guard let a usable subproject of the key's project through: the public reference forbids nesting.
      if (parentProjectId !== authOf(request).account.projectId) {
        throw invalidArgument([{ field: 'parentProjectId', description: 'is a subproject: a subproject cannot have subprojects' }], 'params');
      }
      return store.create(parentProjectId, request.body.displayName);
    });

    app.get(base, { preValidation: guard, schema: { params: ParentParams, querystring: ListQuery } }, async (request) => {
      const { parentProjectId } = request.params;
      const size = request.query.pageSize || DEFAULT_PAGE_SIZE;
      const offset = request.query.pageToken ? decodePageToken(parentProjectId, request.query.pageToken) : 0;
      const { items, total } = store.page(parentProjectId, offset, size);
      const next = offset + items.length;
      return { subprojects: items, nextPageToken: next < total ? encodePageToken(parentProjectId, next) : '' };
    });

    app.get(`${base}/:subprojectId`, { preValidation: guard, schema: { params: ItemParams } }, async (request) => {
      const { parentProjectId, subprojectId } = request.params;
      const found = store.get(parentProjectId, subprojectId);
      if (!found) throw new AreaError(404, `Subproject ${subprojectId} not found in project ${parentProjectId}`);
      return found;
    });
  };
}

export const subprojectsArea: SandboxArea = {
  name: 'subprojects',
  setup(ctx) {
    const store = new SubprojectStore();
    ctx.projectAccess.provide((keyProjectId, projectId) => {
      const age = store.ageMs(keyProjectId, projectId);
      if (age === undefined) return 'unrelated';
      return age >= ctx.options.subprojectReadyAfterMs ? 'usable' : 'not-yet-usable';
    });
    ctx.own({ parts: [store], kept: { name: 'subprojects', parts: { subprojects: store.kept } } });
    return async (app) => {
      await app.register(routes(ctx, store));
    };
  },
};
