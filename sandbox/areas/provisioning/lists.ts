// Paginated lists: `?pageSize=` (at most 1000) `&pageToken=` `&filterStates=A,B`, answered as
// `{<items>: [...], nextPageToken ('' on the last page), totalSize}`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { mustBeOneOf } from '../../core/fields.js';
import type { ScopedTable } from '../../core/table.js';
import { fields } from './validation.js';

const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 100;

interface ListQuery {
  pageSize?: string;
  pageToken?: string;
  filterStates?: string;
}

/** Opaque to clients; bound to the list (project and collection) it came from. */
function encodeToken(list: string, offset: number): string {
  return Buffer.from(JSON.stringify({ l: list, o: offset })).toString('base64url');
}

function decodeToken(list: string, token: string): number | undefined {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { l?: unknown; o?: unknown };
    if (t.l === list && Number.isInteger(t.o) && (t.o as number) >= 0) return t.o as number;
  } catch {
    // reported below
  }
  return undefined;
}

function listPage<T extends { state: string }>(
  items: readonly T[],
  query: ListQuery,
  opts: { list: string; key: string; states: readonly string[] },
): Record<string, unknown> {
  const f = fields();
  let size = DEFAULT_PAGE_SIZE;
  if (query.pageSize !== undefined && query.pageSize !== '') {
    const n = /^\d+$/.test(query.pageSize) ? Number(query.pageSize) : NaN;
    if (Number.isNaN(n)) f.add('pageSize', 'must be a whole number');
    else if (n > MAX_PAGE_SIZE) f.add('pageSize', `must be at most ${MAX_PAGE_SIZE}`);
    else if (n > 0) size = n;
  }
  let offset = 0;
  if (query.pageToken) {
    const o = decodeToken(opts.list, query.pageToken);
    if (o === undefined) f.add('pageToken', 'is not a valid page token for this list');
    else offset = o;
  }
  let states: string[] | undefined;
  if (query.filterStates) {
    states = query.filterStates
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = states.filter((s) => !opts.states.includes(s));
    if (bad.length) f.add('filterStates', `${bad.join(', ')}: ${mustBeOneOf(opts.states)}`);
  }
  f.check();
  const matching = states ? items.filter((i) => states.includes(i.state)) : items;
  const page = matching.slice(offset, offset + size);
  const next = offset + page.length;
  return { [opts.key]: page, nextPageToken: next < matching.length ? encodeToken(opts.list, next) : '', totalSize: matching.length };
}

/** GET `path`: a page of the project's records in `table`; `name` binds page tokens to this list, `key` names the items. */
export function listRoute<T extends { state: string }>(
  app: FastifyInstance,
  path: string,
  preValidation: ((request: FastifyRequest) => Promise<void>)[],
  table: ScopedTable<T>,
  opts: { name: string; key: string; states: readonly string[] },
): void {
  app.get<{ Params: { projectId: string }; Querystring: ListQuery }>(path, { preValidation }, async (request) =>
    listPage(table.list(request.params.projectId), request.query, { list: `${opts.name}:${request.params.projectId}`, key: opts.key, states: opts.states }),
  );
}
