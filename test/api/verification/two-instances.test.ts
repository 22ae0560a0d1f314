// Two API instances (two buildApp, each with its own Temporal connection and its own pool) on one PostgreSQL
// database, as a deployment runs them behind a front: the verification guards are kept in the store, so both see the
// same counts. The per-number guard refuses the sixth start to a number across both, a rate limit holds across both,
// a pumping block decided by starts through one refuses at the other, a geo rule set through one applies at the other;
// and what they keep holds no number and no IP.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { after, before, describe, test } from 'node:test';
import { TEST_API_KEY, useHarness, type Harness } from '../../helpers/harness.js';
import { startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { secondApiInstance } from '../../helpers/second-api.js';
import { sharedDatabaseUrl } from '../../helpers/shared-postgres.js';
import { phoneInbox } from '../../helpers/verification.js';

const PID = String(process.pid % 1000).padStart(3, '0');
let counter = 0;
/** Every number and IP the tests used: none may be in the guards' tables. */
const used: string[] = [];
const remember = (value: string) => (used.push(value), value);
/** A fresh Norwegian mobile number under +4741<pid>: the guard tests' numbers. */
const norwegian = () => remember(`+4741${PID}${String((counter += 1)).padStart(3, '0')}`);
/** Numbers under the one 8-digit prefix the pumping test floods. */
const PUMPED_PREFIX = `4673${PID}9`;
const pumped = () => remember(`+${PUMPED_PREFIX}${String((counter += 1) % 1000).padStart(3, '0')}`);
const CACHE_MS = 300;

describe('two API instances on one database', () => {
  let url = '';
  let own: TestPostgres | undefined;
  before(async () => {
    url = (await sharedDatabaseUrl()) ?? (own = await startPostgres()).url;
  });
  const h: Harness = useHarness(() => ({
    env: {
      RELAYFLOW_DATABASE_URL: url,
      RELAYFLOW_VERIFICATION_RATE_LIMITS: JSON.stringify([{ id: 'per-ip', key: 'ip', max: 3, windowSeconds: 600 }]),
      RELAYFLOW_VERIFICATION_PUMPING_PREFIX_DIGITS: '8',
      RELAYFLOW_VERIFICATION_PUMPING_MIN_STARTS: '3',
      RELAYFLOW_VERIFICATION_PUMPING_FLOOR: '0.5',
      RELAYFLOW_VERIFICATION_PUMPING_CACHE_MS: String(CACHE_MS),
      RELAYFLOW_VERIFICATION_GEO_CACHE_MS: String(CACHE_MS),
    },
  }));
  // The second instance: its own store (pool), Temporal connection and app, on the same database and task queue.
  const second = secondApiInstance(h, () => url);
  after(async () => {
    await own?.stop();
  });

  const instances = () => [h.app, second.app] as const;
  const start = (app: FastifyInstance, payload: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: '/v1/verifications', headers: { authorization: `Bearer ${TEST_API_KEY}` }, payload });

  test('the per-number guard: five starts to a number across both go, the sixth is refused on either', async () => {
    const identity = norwegian();
    // Data verifications: no message, so the pumping guard (which counts those) is not what refuses them.
    for (let i = 0; i < 5; i += 1) {
      const res = await start(instances()[i % 2]!, { identity, method: 'seamless' });
      assert.equal(res.statusCode, 201, `start ${i + 1}: ${res.body}`);
    }
    for (const app of instances()) {
      const res = await start(app, { identity, method: 'seamless' });
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.json().error.code, 'too_many_verifications');
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(retryAfter > 3_500 && retryAfter <= 3_600, `Retry-After ${res.headers['retry-after']}: when the first of the hour leaves it`);
    }
  });

  test('a rate limit by IP: three starts across both go, the fourth is refused on either', async () => {
    const ip = remember(`203.0.113.${process.pid % 250}-${Date.now()}`);
    for (const app of [h.app, second.app, h.app])
      assert.equal((await start(app, { identity: norwegian(), method: 'seamless', rateLimits: { ip } })).statusCode, 201);
    for (const app of instances()) {
      const res = await start(app, { identity: norwegian(), method: 'seamless', rateLimits: { ip } });
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.json().error.code, 'rate_limited');
      assert.match(res.json().error.message, /^body\.rateLimits\.ip: at most 3 verifications per ip per 10 min \(limit per-ip\)/);
    }
  });

  test('a pumping block decided by starts through one instance refuses at the other', async () => {
    // Three SMS starts through the first instance, no code reported: under the floor with enough starts, blocked.
    for (let i = 0; i < 3; i += 1) {
      const res = await start(h.app, { identity: pumped(), method: 'sms' });
      assert.equal(res.statusCode, 201, res.body);
    }
    const refusedHere = await start(h.app, { identity: pumped(), method: 'sms' });
    assert.equal(refusedHere.statusCode, 429, refusedHere.body);
    const identity = pumped();
    const refused = await start(second.app, { identity, method: 'sms' });
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().error.code, 'pumping_suspected');
    assert.match(refused.json().error.message, new RegExp(`blocked numbers beginning \\+${PUMPED_PREFIX}: 0 of 3 verifications reported a code`));
    assert.deepEqual(await phoneInbox(h, identity), [], 'nothing sent');
    // Both show the same guard; a lift through the second instance lets starts go on the first.
    const view = (
      await second.app.inject({ method: 'GET', url: `/v1/verification-pumping-guards/${PUMPED_PREFIX}`, headers: { authorization: `Bearer ${TEST_API_KEY}` } })
    ).json();
    assert.equal(view.blocked, true, JSON.stringify(view));
    assert.equal(view.starts, 3);
    const lift = await second.app.inject({
      method: 'POST',
      url: `/v1/verification-pumping-guards/${PUMPED_PREFIX}/lift`,
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
      payload: {},
    });
    assert.equal(lift.statusCode, 200, lift.body);
    await new Promise((r) => setTimeout(r, CACHE_MS + 50));
    assert.equal((await start(h.app, { identity: pumped(), method: 'sms' })).statusCode, 201);
  });

  test('a geo rule set through one instance applies at the other', async () => {
    const identity = norwegian();
    const put = await h.api({
      method: 'PUT',
      url: '/v1/verification-geo-rules',
      payload: { rules: [{ id: 'no-norway-flashcall', action: 'block', countries: ['NO'], methods: ['flashcall'] }] },
    });
    assert.equal(put.statusCode, 200, put.body);
    // The other instance reads the rules again once its copy is older than its cache time.
    const decision = async () =>
      (
        await second.app.inject({
          method: 'GET',
          url: `/v1/verification-geo-rules/decision?identity=${encodeURIComponent(identity)}&method=flashcall`,
          headers: { authorization: `Bearer ${TEST_API_KEY}` },
        })
      ).json();
    const changedAt = Date.now();
    while ((await decision()).allowed) {
      assert.ok(Date.now() - changedAt < CACHE_MS + 3_000, 'the other instance still allows it');
      await new Promise((r) => setTimeout(r, 50));
    }
    const res = await start(second.app, { identity, method: 'flashcall' });
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().error.code, 'geo_blocked');
    assert.match(res.json().error.message, /by rule no-norway-flashcall \(set through the API\)/);
    const read = (await second.app.inject({ method: 'GET', url: '/v1/verification-geo-rules', headers: { authorization: `Bearer ${TEST_API_KEY}` } })).json();
    assert.equal(read.version, put.json().version);
    assert.equal(read.rules[0].id, 'no-norway-flashcall');
  });

  test("the guards' tables hold no number and no IP: keyed hashes, prefixes and process IDs only", async () => {
    const tables = ['relayflow_verification_admissions', 'relayflow_pumping_guards', 'relayflow_pumping_decisions', 'relayflow_geo_rule_changes'];
    const stored = JSON.stringify(await Promise.all(tables.map((t) => second.store.sql.query(`SELECT * FROM ${t}`))));
    assert.ok(stored.includes('number:') && stored.includes(PUMPED_PREFIX), 'the tables were written');
    for (const value of used) {
      assert.ok(!stored.includes(value.replace(/^\+/, '')), `${value} is not stored`);
      assert.ok(!stored.includes(Buffer.from(value).toString('base64')), `${value} is not stored encoded`);
    }
  });
});
