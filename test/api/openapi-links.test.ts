// The OpenAPI document lets a client (or a fuzzer's stateful phase) chain start -> read -> act: every operation
// has a unique operationId, every start of every collection in the family registry links from its success
// answers to the collection's read and to every action on the process, and to the generic process routes, and
// every link names an operation that exists with exactly that operation's path parameters.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FAMILIES, FAMILY_NAMES } from '../../processes/kinds.js';
import { offlineApp, type OfflineApp } from '../helpers/offline-app.js';

interface Link {
  operationId: string;
  parameters: Record<string, string>;
}
interface Operation {
  operationId?: string;
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, { links?: Record<string, Link> }>;
}
type Paths = Record<string, Record<string, Operation>>;

const pathParams = (op: Operation) => (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);

describe('OpenAPI links', () => {
  let offline: OfflineApp;
  let paths: Paths;
  let byId: Map<string, { method: string; path: string; op: Operation }>;
  before(async () => {
    offline = await offlineApp((_req, res) => res.writeHead(500).end());
    paths = ((await offline.api('GET', '/docs/json')).json() as { paths: Paths }).paths;
    byId = new Map(
      Object.entries(paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [op.operationId ?? '', { method, path, op }] as const)),
    );
  });
  after(() => offline?.close());

  const operations = () => Object.entries(paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method, path, op })));

  test('every operation has an operationId, and no two share one', () => {
    const ids = operations().map(({ method, path, op }) => op.operationId ?? `(none: ${method.toUpperCase()} ${path})`);
    assert.ok(ids.length >= 90, `found ${ids.length}`);
    assert.deepEqual(
      ids.filter((id) => id.startsWith('(none')),
      [],
    );
    assert.equal(new Set(ids).size, ids.length, `duplicates: ${ids.filter((id, i) => ids.indexOf(id) !== i).join(', ')}`);
  });

  test("every start of every collection links to its read, its actions and the process's generic routes", () => {
    let starts = 0;
    for (const f of FAMILY_NAMES) {
      for (const c of FAMILIES[f].collections) {
        const read = `${c.path}/{processId}`;
        // What a start must link to: every operation on one process of the collection that needs nothing but its ID.
        const targets = operations()
          .filter(({ path }) => path === read || path.startsWith(`${read}/`))
          .filter(({ op }) => pathParams(op).join() === 'processId')
          .map(({ op }) => op.operationId!);
        assert.ok(targets.length > 0, `${c.path}: no read`);
        const expected = [...targets, 'readProcess', 'readProcessTimeline'].sort();
        const startPaths = Object.keys(paths).filter((p) => p === c.path || p.startsWith(`${c.path}/`));
        for (const path of startPaths) {
          const op = paths[path]!.post;
          if (!op || pathParams(op).length) continue;
          starts += 1;
          const successes = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
          assert.ok(successes.length > 0, `POST ${path}`);
          for (const [status, response] of successes) {
            assert.deepEqual(Object.keys(response.links ?? {}).sort(), expected, `POST ${path} ${status}`);
          }
        }
        const styles = c.styles?.length ?? 1;
        assert.ok(startPaths.length >= styles, `${c.path}: ${styles} starts expected`);
      }
    }
    assert.ok(starts >= 15, `found ${starts} starts`);
  });

  test("every link names an existing operation and gives exactly its path parameters, from the start's answer", () => {
    let links = 0;
    for (const { method, path, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [name, link] of Object.entries(response.links ?? {})) {
          const where = `${method.toUpperCase()} ${path} ${status} ${name}`;
          const target = byId.get(link.operationId);
          assert.ok(target, `${where}: no operation ${link.operationId}`);
          assert.deepEqual(Object.keys(link.parameters).sort(), pathParams(target.op).sort(), where);
          for (const value of Object.values(link.parameters)) assert.match(value, /^\$response\.body#\/\w+$/, where);
          const schema = (op.responses[status] as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }).content;
          const properties = schema?.['application/json']?.schema?.properties ?? {};
          for (const value of Object.values(link.parameters)) assert.ok(value.split('/').at(-1)! in properties, `${where}: the answer has no ${value}`);
          links += 1;
        }
      }
    }
    assert.ok(links >= 100, `found ${links} links`);
  });
});
