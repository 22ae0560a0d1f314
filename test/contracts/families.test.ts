// Walks the family registry (contracts/families.ts) and finds, for each family, every part a newcomer expects to
// find under its one name: its contracts, workflows, activities, routes, sandbox areas, tests and docs page. A
// family that loses one of them, a kind that belongs to no family, or a signal/update the registry does not list
// fails here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PLATFORM_AREAS } from '../../common/config.js';
import { FAMILIES, FAMILY_NAMES, familyOf, workflowTypeOf } from '../../contracts/families.js';
import { PROCESS_KINDS } from '../../contracts/ids.js';
import { offlineApp, type OfflineApp } from '../helpers/offline-app.js';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const testFilesUnder = (dir: string) =>
  existsSync(join(ROOT, dir)) ? readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts')) : [];

/** The names passed to defineSignal/defineUpdate in a contract file. */
function defined(source: string, what: 'Signal' | 'Update'): string[] {
  return [...source.matchAll(new RegExp(`define${what}<[\\s\\S]*?>\\('([^']+)'\\)`, 'g'))].map((m) => m[1]!);
}

describe('the family registry', () => {
  test('every kind of process belongs to exactly one family, and every family is listed once', () => {
    const kinds = FAMILY_NAMES.flatMap((f) => FAMILIES[f].kinds.map((k) => k.kind));
    assert.deepEqual([...kinds].sort(), [...PROCESS_KINDS].sort());
    for (const f of FAMILY_NAMES) assert.equal(FAMILIES[f].name, f);
    for (const kind of PROCESS_KINDS) assert.ok(FAMILIES[familyOf(kind)].kinds.some((k) => k.kind === kind));
  });

  test('every collection serves kinds of its own family', () => {
    for (const f of FAMILY_NAMES) {
      for (const c of FAMILIES[f].collections) {
        assert.match(c.path, /^\/v1\/[a-z/]+$/, `${f}: ${c.path}`);
        for (const kind of c.kinds) assert.equal(familyOf(kind), f, `${c.path} serves ${kind}`);
      }
    }
  });

  for (const name of FAMILY_NAMES) {
    const family = FAMILIES[name];
    describe(name, () => {
      test('its contracts exist and define exactly the signals and updates the registry lists', () => {
        const sources = family.contracts.map((file) => read(join('contracts', file)));
        assert.deepEqual(sources.flatMap((s) => defined(s, 'Signal')).sort(), [...family.signals].sort());
        assert.deepEqual(sources.flatMap((s) => defined(s, 'Update')).sort(), [...family.updates].sort());
      });

      test('the worker registers a workflow for each of its kinds, from workflows/<family>/', () => {
        const index = read('workflows/index.ts');
        for (const { kind } of family.kinds) {
          const type = workflowTypeOf(kind);
          const line = index.split('\n').find((l) => new RegExp(`export \\{[^}]*\\b${type}\\b[^}]*\\} from '\\./([a-z]+)/`).test(l));
          assert.ok(line, `${kind}: workflows/index.ts exports no ${type}`);
          assert.match(line, new RegExp(`from '\\./${name}/`), `${type} lives outside workflows/${name}/`);
        }
      });

      test('its activities, routes and docs page sit under its name', () => {
        for (const dir of [`activities/${name}`, `api/routes/${name}`]) assert.ok(existsSync(join(ROOT, dir)), `${dir} is missing`);
        assert.ok(existsSync(join(ROOT, 'docs', 'processes', `${name}.md`)), `docs/processes/${name}.md is missing`);
        assert.match(read('docs/README.md'), new RegExp(`processes/${name}\\.md`), 'docs/README.md does not link its page');
      });

      test('the sandbox plays every platform area it talks to', () => {
        for (const area of family.areas) {
          assert.ok((PLATFORM_AREAS as readonly string[]).includes(area), `${area} is not a platform area`);
          assert.ok(existsSync(join(ROOT, 'sandbox', 'areas', area)), `sandbox/areas/${area} is missing`);
        }
      });

      test('it has tests under its name, against Temporal and through the API', () => {
        const workflowTests = [...testFilesUnder(`test/workflows/${name}`), ...testFilesUnder(`test/e2e/${name}`)];
        assert.ok(workflowTests.length > 0, `no test under test/workflows/${name}/ or test/e2e/${name}/`);
        assert.ok(testFilesUnder(`test/api/${name}`).length > 0, `no test under test/api/${name}/`);
      });
    });
  }

  describe('the API document', () => {
    let offline: OfflineApp;
    let paths: Record<string, Record<string, { tags?: string[] }>>;
    before(async () => {
      offline = await offlineApp((_req, res) => res.writeHead(500).end());
      paths = ((await offline.api('GET', '/docs/json')).json() as { paths: typeof paths }).paths;
    });
    after(() => offline?.close());

    test("every collection's starts, lists and read are in the document under its tag", () => {
      for (const f of FAMILY_NAMES) {
        for (const c of FAMILIES[f].collections) {
          const styles = c.styles?.map((s) => `${c.path}/${s.segment}`) ?? [c.path];
          const expected: [string, string][] = [
            ...styles.flatMap((p): [string, string][] => [
              ['post', p],
              ['get', p],
            ]),
            ['get', `${c.path}/{processId}`],
            ...(c.listsAll ? [['get', c.path] as [string, string]] : []),
          ];
          for (const [method, path] of expected) {
            const op = paths[path]?.[method];
            assert.ok(op, `${f}: ${method.toUpperCase()} ${path} is not in the document`);
            assert.deepEqual(op.tags, [c.tag], `${f}: ${method.toUpperCase()} ${path}`);
          }
        }
      }
    });
  });
});
