// Geo permissions through the API against a real Temporal server, the store and the sandbox: a start to a blocked
// country is a 403 naming the rule, with nothing started or sent; rules changed at run time take effect on this
// instance at once and on another within the cache time (and a fresh instance, as after a restart, reads them);
// changing them needs the admin scope and is recorded; a bad rule is a 400 naming the field; platform-initiated
// verifications obey them too.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { numberFacts } from '../../../common/verification-geo.js';
import { subjectHasher } from '../../../common/subject-hash.js';
import { GeoRuleStore } from '../../../store/index.js';
import { useHarness, type Harness } from '../../helpers/harness.js';
import { scrape, total } from '../../helpers/metrics.js';
import { freshNumber, phoneInbox, platformStarts, startOnPlatform, startVerification, verificationRoutesWith } from '../../helpers/verification.js';

const CACHE_MS = 600;
const OPERATOR = 'geo-test-operator-key-0123456789';
const READER = 'geo-test-read-only-key-012345678';
const keysDir = mkdtempSync(join(tmpdir(), 'relayflow-geo-'));
writeFileSync(join(keysDir, 'keys'), `${OPERATOR} operator\n${READER} read-only\n`);

let counter = 0;
const suffix = () => `${String(process.pid % 1000).padStart(3, '0')}${String((counter += 1)).padStart(4, '0')}`;
/** A fresh Norwegian mobile number (+47 41: mobile, whatever the process ID). */
const norwegian = () => `+4741${suffix().slice(1)}`;
/** A fresh UK premium-rate number (09xx). */
const ukPremium = () => `+44909${suffix()}`;

const RULES = '/v1/verification-geo-rules';
const REFUSALS = 'relayflow_verification_geo_refusals_total';

describe('verification geo permissions', () => {
  const h: Harness = useHarness({
    env: {
      RELAYFLOW_API_KEYS_FILE: join(keysDir, 'keys'),
      RELAYFLOW_VERIFICATION_GEO_RULES: JSON.stringify([{ id: 'no-norway', action: 'block', countries: ['NO'], note: 'configured' }]),
      RELAYFLOW_VERIFICATION_GEO_CACHE_MS: String(CACHE_MS),
    },
  });
  const as = (key: string, o: Parameters<Harness['api']>[0]) => h.app.inject({ ...o, headers: { authorization: `Bearer ${key}`, ...o.headers } });
  const put = (payload: Record<string, unknown>) => h.api({ method: 'PUT', url: RULES, payload });
  const start = (payload: Record<string, unknown>) => h.api({ method: 'POST', url: '/v1/verifications', payload });
  const refusals = async (labels: Record<string, string>) => total(await scrape(`${h.apiUrl}/metrics`), REFUSALS, labels);

  /** Nothing reached the platform or the phone for the number, and its per-number guard was never asked. */
  async function nothingFor(identity: string) {
    assert.deepEqual(await platformStarts(h, identity), [], 'the sandbox saw no start for the number');
    assert.deepEqual(await phoneInbox(h, identity), [], 'the phone got nothing');
    const key = `number:${subjectHasher(h.config.codecKeys)(identity)}`;
    assert.deepEqual(await h.store.sql.query('SELECT key FROM relayflow_verification_admissions WHERE key = $1', [key]), [], 'no guard admission');
  }

  before(() => {
    assert.equal(numberFacts(ukPremium()).numberType, 'premium_rate');
    assert.equal(numberFacts(norwegian()).numberType, 'mobile');
  });
  after(() => rmSync(keysDir, { recursive: true, force: true }));

  test('a configured blocked country: 403 geo_blocked naming the rule; nothing started or sent; counted', async () => {
    const identity = norwegian();
    const before = await refusals({ rule: 'no-norway', source: 'config', via: 'api', country: 'NO', method: 'sms' });
    const res = await start({ identity, method: 'sms' });
    assert.equal(res.statusCode, 403, res.body);
    const { error } = res.json();
    assert.equal(error.code, 'geo_blocked');
    assert.equal(
      error.message,
      'body.method: +47 (NO) mobile numbers are blocked for sms by rule no-norway (RELAYFLOW_VERIFICATION_GEO_RULES); nothing was started or sent',
    );
    assert.deepEqual(error.details, [
      {
        field: 'body.method',
        rule: 'geo_blocked',
        message: '+47 (NO) mobile numbers are blocked for sms by rule no-norway (RELAYFLOW_VERIFICATION_GEO_RULES)',
      },
    ]);
    assert.ok(!res.body.includes(identity.slice(3)), 'the answer does not repeat the number');
    await nothingFor(identity);
    assert.equal(await refusals({ rule: 'no-norway', source: 'config', via: 'api', country: 'NO', method: 'sms' }), before + 1);
  });

  test('a rule changed at run time takes effect: on this instance at once, on another within the cache time, on a new one at its first start', async () => {
    const other = await verificationRoutesWith(h, { waitMs: 5_000 });
    const decisionOn = async (app: typeof other.app, identity: string, method: string) =>
      (await app.inject({ method: 'GET', url: `${RULES}/decision?identity=${encodeURIComponent(identity)}&method=${method}` })).json();
    try {
      // Before: a UK premium number may get an SMS (the other instance reads and caches that).
      const allowed = ukPremium();
      assert.equal((await startVerification(h, { identity: allowed, method: 'sms' })).state, 'PENDING');
      assert.equal((await platformStarts(h, allowed)).length, 1);
      assert.equal((await decisionOn(other.app, ukPremium(), 'sms')).allowed, true);

      const current = (await h.api({ method: 'GET', url: RULES })).json();
      const changed = await put({
        rules: [{ id: 'no-premium-sms', action: 'block', numberTypes: ['premium_rate'], methods: ['sms'] }],
        expectedVersion: current.version,
      });
      assert.equal(changed.statusCode, 200, changed.body);
      const view = changed.json();
      assert.equal(view.version, current.version + 1);
      assert.match(view.updatedBy, /^[0-9a-f]{12}$/, 'the API key ID that changed them');
      assert.deepEqual(
        view.configured.rules.map((r: { id: string }) => r.id),
        ['no-norway'],
      );
      assert.equal(view.cacheSeconds, CACHE_MS / 1000);
      // The change is recorded with the key that made it (the record of every change).
      const [recorded] = await new GeoRuleStore(h.store.sql).changes(1);
      assert.deepEqual(recorded, { rules: view.rules, version: view.version, updatedAt: Date.parse(view.updatedAt), updatedBy: view.updatedBy });

      // This instance: at once. SMS refused, with nothing sent; another method to the same number still starts.
      const blocked = ukPremium();
      const refused = await start({ identity: blocked, method: 'sms' });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.match(
        refused.json().error.message,
        /^body\.method: \+44 \(GB\) premium rate numbers are blocked for sms by rule no-premium-sms \(set through the API\)/,
      );
      await nothingFor(blocked);
      assert.equal((await startVerification(h, { identity: blocked, method: 'flashcall' })).state, 'PENDING');

      // The other instance: within its cache time (plus a loaded machine's slack).
      const changedAt = Date.now();
      while ((await decisionOn(other.app, ukPremium(), 'sms')).allowed) {
        assert.ok(Date.now() - changedAt < CACHE_MS + 3_000, 'the other instance still allows it');
        await new Promise((r) => setTimeout(r, 50));
      }
      const decision = await decisionOn(other.app, ukPremium(), 'sms');
      assert.deepEqual(decision.rule, { id: 'no-premium-sms', source: 'api', action: 'block' });
      assert.equal(decision.numberType, 'premium_rate');
      assert.equal(decision.country, 'GB');

      // A new instance (as after a restart) refuses at its first start: the rules are kept in the store, not in memory.
      const restarted = await verificationRoutesWith(h, { waitMs: 5_000 });
      try {
        const res = await restarted.app.inject({ method: 'POST', url: '/v1/verifications', payload: { identity: ukPremium(), method: 'sms' } });
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().error.code, 'geo_blocked');
      } finally {
        await restarted.app.close();
      }
    } finally {
      await other.app.close();
    }
  });

  test('a fallback chain with a blocked later step is refused whole, naming that step; nothing is sent', async () => {
    assert.equal((await put({ rules: [{ id: 'no-gb-callout', action: 'block', countries: ['GB'], methods: ['callout'] }] })).statusCode, 200);
    const identity = ukPremium();
    const res = await start({ identity, fallback: [{ method: 'sms' }, { method: 'callout' }] });
    assert.equal(res.statusCode, 403, res.body);
    const { error } = res.json();
    assert.equal(error.details[0].field, 'body.fallback.1.method');
    assert.match(error.message, /blocked for callout by rule no-gb-callout/);
    await nothingFor(identity);
  });

  test("the API's default action and its rules come before the configuration's", async () => {
    const res = await put({ rules: [{ id: 'norway-flashcall', action: 'allow', countries: ['NO'], methods: ['flashcall'] }], defaultAction: 'block' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().effectiveDefault, 'block');
    assert.equal((await startVerification(h, { identity: norwegian(), method: 'flashcall' })).state, 'PENDING');
    const configured = (await start({ identity: norwegian(), method: 'sms' })).json().error.message;
    assert.match(configured, /by rule no-norway \(RELAYFLOW_VERIFICATION_GEO_RULES\)/);
    const byDefault = await start({ identity: freshNumber(), method: 'sms' });
    assert.equal(byDefault.statusCode, 403);
    assert.match(byDefault.json().error.message, /\+46 \(SE\) mobile numbers are blocked for sms by the default action \(block, set through the API\)/);
    assert.equal((await put({ rules: [] })).json().effectiveDefault, 'allow', 'back to the configured default');
  });

  test('a verification an SDK starts on the platform is denied too (its request event), and counted via platform', async () => {
    assert.equal((await put({ rules: [{ id: 'no-premium', action: 'block', numberTypes: ['premium_rate'] }] })).statusCode, 200);
    const before = await refusals({ rule: 'no-premium', via: 'platform' });
    const sdk = await startOnPlatform(h, ukPremium());
    assert.equal(sdk.status, 403, 'the VerificationRequestEvent was answered deny');
    assert.equal(await refusals({ rule: 'no-premium', via: 'platform' }), before + 1);
    assert.equal((await startOnPlatform(h, freshNumber())).status, 200, 'an allowed number is not');
  });

  test('changing the rules needs the admin scope; reading them does not', async () => {
    const refused = await as(OPERATOR, { method: 'PUT', url: RULES, payload: { rules: [] } });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().error.code, 'forbidden');
    assert.match(refused.json().error.message, /needs the admin scope/);
    const read = await as(READER, { method: 'GET', url: RULES });
    assert.equal(read.statusCode, 200, read.body);
    const decision = await as(READER, { method: 'GET', url: `${RULES}/decision?identity=%2B46700000001&method=sms` });
    assert.equal(decision.statusCode, 200, decision.body);
    assert.equal((await as(READER, { method: 'PUT', url: RULES, payload: { rules: [] } })).statusCode, 403);
    assert.equal((await put({ rules: [] })).statusCode, 200, 'admin');
  });

  test('a bad rule is a 400 naming the field; duplicate ids a 422; a stale expectedVersion a 409; nothing changes', async () => {
    const before = (await h.api({ method: 'GET', url: RULES })).json().version;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ rules: [{ id: 'uk', action: 'block', countries: ['UK'] }] }, 'body.rules.0.countries.0', 'enum'],
      [{ rules: [{ id: 'x', action: 'block', numberTypes: ['premium'] }] }, 'body.rules.0.numberTypes.0', 'enum'],
      [{ rules: [{ id: 'x', action: 'block', methods: ['telegram'] }] }, 'body.rules.0.methods.0', 'enum'],
      [{ rules: [{ id: 'x', action: 'deny' }] }, 'body.rules.0.action', 'enum'],
      [{ rules: [{ id: 'x' }] }, 'body.rules.0.action', 'required'],
      [{ rules: [{ id: 'has space', action: 'block' }] }, 'body.rules.0.id', 'pattern'],
      [{ rules: [{ id: 'x', action: 'block', countries: [] }] }, 'body.rules.0.countries', 'minItems'],
      [{ rules: [{ id: 'x', action: 'block', country: 'GB' }] }, 'body.rules.0.country', 'unknown_field'],
      [{ rules: [], defaultAction: 'deny' }, 'body.defaultAction', 'enum'],
      [{}, 'body.rules', 'required'],
    ];
    for (const [payload, field, rule] of cases) {
      const res = await put(payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      const details = res.json().error.details as { field: string; rule: string }[];
      assert.ok(
        details.some((d) => d.field === field && d.rule === rule),
        `${field} ${rule}: ${JSON.stringify(details)}`,
      );
    }
    const dup = await put({
      rules: [
        { id: 'a', action: 'block', countries: ['GB'] },
        { id: 'a', action: 'allow' },
      ],
    });
    assert.equal(dup.statusCode, 422, dup.body);
    assert.deepEqual(dup.json().error.details, [{ field: 'body.rules.1.id', rule: 'unique', message: '"a" is also the id of body.rules.0' }]);
    const stale = await put({ rules: [], expectedVersion: before + 5 });
    assert.equal(stale.statusCode, 409, stale.body);
    assert.equal(stale.json().error.code, 'version_conflict');
    assert.equal(stale.json().error.details[0].field, 'body.expectedVersion');
    assert.equal((await h.api({ method: 'GET', url: RULES })).json().version, before, 'no change was made');
    const badQuery = await h.api({ method: 'GET', url: `${RULES}/decision?identity=%2B46700000001&method=fax` });
    assert.equal(badQuery.statusCode, 400);
    assert.equal(badQuery.json().error.details[0].field, 'query.method');
  });
});
