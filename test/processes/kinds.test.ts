// The kinds' descriptors (processes/<family>/<kind>/kind.ts) and what is derived from them: each descriptor's
// states mean one thing each, and the registries (IDs, families, collections, attention, counts by state, step
// outcomes) follow the list. Then walks each family for every part a newcomer expects to find under its one name:
// its contracts, workflows, activities, routes, sandbox areas, tests and docs page. A family that loses one of
// them, or a signal/update no descriptor lists, fails here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PLATFORM_AREAS } from '../../common/config.js';
import { attentionOf, knownStates } from '../../api/processes/attention.js';
import { childOutcome } from '../../processes/onboarding/onboarding/steps.js';
import {
  COLLECTIONS,
  DESCRIPTORS,
  FAMILIES,
  FAMILY_NAMES,
  familyOf,
  kindOfWorkflowId,
  PROCESS_KINDS,
  workflowIds,
  workflowTypeOf,
} from '../../processes/kinds.js';
import { offlineApp, type OfflineApp } from '../helpers/offline-app.js';

// The repository's root: the runner starts every test there, also from its compiled copy (where this file's own folder is elsewhere).
const ROOT = process.cwd();
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const testFilesUnder = (dir: string) =>
  existsSync(join(ROOT, dir)) ? readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts')) : [];

/** The names passed to defineSignal/defineUpdate in a contract file. */
function defined(source: string, what: 'Signal' | 'Update'): string[] {
  return [...source.matchAll(new RegExp(`define${what}<[\\s\\S]*?>\\('([^']+)'\\)`, 'g'))].map((m) => m[1]!);
}

/** A family's contract files: whatever under processes/<family>/ is not workflow, activity or route code. */
const contractFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !/(^|\/)(workflow|activities|routes)\//.test(f))
    .map((f) => join(dir, f));
const sorted = (list: readonly string[]) => [...list].sort();

describe('each descriptor', () => {
  for (const d of DESCRIPTORS) {
    test(`${d.kind}: its states mean one thing each`, () => {
      const { all, initial, final, succeeded, failed, waiting } = d.states;
      assert.equal(new Set(all).size, all.length, 'a state listed twice');
      for (const [name, list] of Object.entries({ final, succeeded, failed, waiting, initial: [initial] }))
        for (const s of list) assert.ok(all.includes(s), `${name} names ${s}, which is not one of its states`);
      for (const s of succeeded) assert.ok(!failed.includes(s), `${s} both succeeded and failed`);
      for (const s of waiting) assert.ok(!failed.includes(s), `${s} both failed and waits on a person`);
      assert.ok(!final.includes(initial), `it starts in a final state (${initial})`);
      // A process that ends waiting on a person ends with what was asked done (a chat sender kept as a draft).
      for (const s of waiting) assert.ok(!final.includes(s) || succeeded.includes(s), `${s} ends it and waits on a person`);
      if (d.change) assert.ok(succeeded.includes(d.change.live), `the live state ${d.change.live} is not a success`);
      if (d.retryInPlace) for (const s of d.retryInPlace.from) assert.ok(failed.includes(s) && !final.includes(s), `${s}: retried in place`);
    });

    test(`${d.kind}: its ID builder makes IDs of its kind`, () => {
      const id = d.id(...Array.from({ length: d.id.length }, (_, i) => `part${i}`));
      assert.ok(id.startsWith(`${d.kind}:`), id);
      assert.equal(kindOfWorkflowId(id), d.kind);
    });
  }
});

test('kinds that share a workflow type share its behaviour across an upgrade (docs/upgrades.md)', () => {
  const byType = new Map<string, Set<string>>();
  for (const d of DESCRIPTORS) byType.set(d.workflowType, (byType.get(d.workflowType) ?? new Set()).add(d.versioning));
  assert.deepEqual(
    [...byType].filter(([, v]) => v.size > 1).map(([type]) => type),
    [],
  );
  // Pinned: the kinds that end within hours. The ones that watch a resource for months move to new code.
  const pinned = DESCRIPTORS.filter((d) => d.versioning === 'pinned').map((d) => d.kind);
  assert.deepEqual(sorted(pinned), ['conversation-campaign', 'mms-campaign', 'sdk-verification', 'verification', 'voice-callout', 'voice-incoming']);
});

describe('the registries derived from the descriptors', () => {
  test("the kinds, the ID builders and the families are the descriptors' own", () => {
    assert.deepEqual(
      PROCESS_KINDS,
      DESCRIPTORS.map((d) => d.kind),
    );
    assert.equal(new Set(PROCESS_KINDS).size, PROCESS_KINDS.length, 'a kind described twice');
    assert.deepEqual(sorted(Object.keys(workflowIds).filter((k) => k !== 'resourceInbox')), sorted(PROCESS_KINDS));
    for (const d of DESCRIPTORS) {
      assert.equal(workflowIds[d.kind], d.id);
      assert.equal(workflowTypeOf(d.kind), d.workflowType);
      assert.equal(familyOf(d.kind), d.family);
      assert.ok(FAMILIES[d.family].kinds.includes(d), `${d.kind} is not among its family's kinds`);
    }
    assert.deepEqual(sorted(FAMILY_NAMES.flatMap((f) => FAMILIES[f].kinds.map((k) => k.kind))), sorted(PROCESS_KINDS));
    for (const f of FAMILY_NAMES) assert.equal(FAMILIES[f].name, f);
    assert.equal(kindOfWorkflowId(workflowIds.resourceInbox('chata', 'sender', '1')), undefined);
  });

  test("every kind with a collection is served there under its tag, and every collection's kinds name it", () => {
    for (const d of DESCRIPTORS) {
      const served = COLLECTIONS.filter((c) => c.kinds.includes(d.kind));
      if (!d.collection) {
        assert.equal(served.length, 0, `${d.kind} has no collection but is served`);
        continue;
      }
      assert.equal(served.length, 1, `${d.kind} is served by ${served.length} collections`);
      assert.equal(served[0]!.path, d.collection.path);
      assert.equal(served[0]!.tag, d.collection.tag);
      for (const style of d.collection.styles ?? []) assert.ok(served[0]!.styles?.some((s) => s.segment === style && s.kind === d.kind));
    }
    for (const c of COLLECTIONS) for (const kind of c.kinds) assert.equal(DESCRIPTORS.find((d) => d.kind === kind)!.collection!.path, c.path);
  });

  test('attention, counts by state and step outcomes follow each descriptor', () => {
    for (const d of DESCRIPTORS) {
      const { all, succeeded, failed, waiting, final } = d.states;
      assert.deepEqual(sorted(knownStates(d.kind)), sorted(all));
      for (const s of all) {
        const expected = failed.includes(s) ? 'failed' : waiting.includes(s) ? 'waiting-on-person' : undefined;
        assert.equal(attentionOf(d.kind, s, 'RUNNING'), expected, `${d.kind} in ${s}`);
        const outcome = succeeded.includes(s) ? 'ok' : failed.includes(s) || final.includes(s) ? 'failed' : 'on-the-way';
        assert.equal(childOutcome(d.kind, s), outcome, `${d.kind} in ${s}: its step's outcome`);
      }
      assert.equal(attentionOf(d.kind, d.states.initial, 'TERMINATED'), 'failed');
    }
    assert.deepEqual(sorted(knownStates()), sorted([...new Set(DESCRIPTORS.flatMap((d) => d.states.all))]));
  });
});

describe('the family registry', () => {
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
      test("its contracts exist and define exactly the signals and updates its kinds' descriptors list", () => {
        const sources = contractFiles(`processes/${name}`).map(read);
        assert.ok(sources.length > 0, `no contract under processes/${name}/`);
        const listed = (pick: (d: (typeof family.kinds)[number]) => readonly string[]) => [...new Set(family.kinds.flatMap(pick))];
        assert.deepEqual(sorted(sources.flatMap((s) => defined(s, 'Signal'))), sorted([...listed((d) => d.signals), ...(family.signals ?? [])]));
        assert.deepEqual(sorted(sources.flatMap((s) => defined(s, 'Update'))), sorted(listed((d) => d.updates)));
      });

      test('the worker registers a workflow for each of its kinds, from processes/<family>/', () => {
        const index = read('processes/workflows.ts');
        for (const { kind } of family.kinds) {
          const type = workflowTypeOf(kind);
          const line = index.split('\n').find((l) => new RegExp(`export \\{[^}]*\\b${type}\\b[^}]*\\} from '\\./([a-z]+)/`).test(l));
          assert.ok(line, `${kind}: processes/workflows.ts exports no ${type}`);
          assert.match(line, new RegExp(`from '\\./${name}/(${kind}/)?workflow/`), `${type} lives outside processes/${name}/ (or its kind's folder)`);
        }
      });

      test('its activities, routes and docs page sit under its name', () => {
        const under = (role: string) => [`processes/${name}/${role}`, ...family.kinds.map((d) => `processes/${name}/${d.kind}/${role}`)];
        for (const role of ['activities', 'routes'])
          assert.ok(
            under(role).some((dir) => existsSync(join(ROOT, dir))),
            `no ${role}/ under processes/${name}/`,
          );
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
