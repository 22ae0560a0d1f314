// Rate limits by key and the SMS-pumping guard, through the API against a real Temporal server, the store and the
// sandbox: limits by IP and by user held across two API instances on the same store and across a restart (a new
// instance: nothing is counted in memory); a refusal is a 429 naming the limit with Retry-After, sends nothing, is
// counted and keeps the key's value out of the store; a pumping burst to one prefix (starts, no codes reported) is
// blocked, visible in the guard's view and the metrics, and lifted by an operator (admin scope).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { subjectHasher } from '../../../common/subject-hash.js';
import { VerificationService } from '../../../processes/verification/routes/service.js';
import { TEST_API_KEY, useHarness, type Harness } from '../../helpers/harness.js';
import { scrape, total } from '../../helpers/metrics.js';
import { messageFor, phoneInbox, platformStarts, report, startVerification, verificationRoutesWith } from '../../helpers/verification.js';

const PID = String(process.pid % 1000).padStart(3, '0');
let counter = 0;
/** A fresh Norwegian mobile number whose first 8 digits change with every call (no pumping prefix fills up). */
const spreadNumber = () => {
  counter += 1;
  return `+4741${PID}${counter % 10}${String(Math.floor(counter / 10) % 100).padStart(2, '0')}`;
};
/** A fresh Swedish mobile number under the one 8-digit prefix +4673<pid>0 the pumping test floods. */
const PUMPED_PREFIX = `4673${PID}0`;
const pumpedNumber = () => `+${PUMPED_PREFIX}${String((counter += 1) % 1000).padStart(3, '0')}`;

const READER = 'limits-test-read-only-key-0123456';
const keysDir = mkdtempSync(join(tmpdir(), 'relayflow-limits-'));
writeFileSync(join(keysDir, 'keys'), `${READER} read-only\n`);

const MIN_STARTS = 6;

describe('verification rate limits by key and the pumping guard', () => {
  const h: Harness = useHarness({
    env: {
      RELAYFLOW_API_KEYS_FILE: join(keysDir, 'keys'),
      RELAYFLOW_VERIFICATION_RATE_LIMITS: JSON.stringify([
        { id: 'per-ip', key: 'ip', max: 2, windowSeconds: 600 },
        { id: 'per-user', key: 'user', max: 3, windowSeconds: 600 },
      ]),
      RELAYFLOW_VERIFICATION_PUMPING_PREFIX_DIGITS: '8',
      RELAYFLOW_VERIFICATION_PUMPING_MIN_STARTS: String(MIN_STARTS),
      RELAYFLOW_VERIFICATION_PUMPING_FLOOR: '0.5',
      RELAYFLOW_VERIFICATION_PUMPING_CACHE_MS: '200',
    },
  });
  after(() => rmSync(keysDir, { recursive: true, force: true }));

  type App = Awaited<ReturnType<typeof verificationRoutesWith>>['app'];
  const startOn = (app: App | undefined, payload: Record<string, unknown>) =>
    app ? app.inject({ method: 'POST', url: '/v1/verifications', payload }) : h.api({ method: 'POST', url: '/v1/verifications', payload });
  const metric = async (name: string, labels: Record<string, string>) => total(await scrape(`${h.apiUrl}/metrics`), name, labels);

  /** The number got nothing and the platform saw no start for it. */
  async function nothingFor(identity: string) {
    assert.deepEqual(await platformStarts(h, identity), [], 'the sandbox saw no start for the number');
    assert.deepEqual(await phoneInbox(h, identity), [], 'the phone got nothing');
  }

  test('limits by IP and by user hold across two API instances and a restart; a refusal is a 429 naming the limit', async () => {
    const other = await verificationRoutesWith(h, { waitMs: 20_000 });
    const ip = `198.51.100.${(process.pid % 200) + 1}-${Date.now()}`;
    const user = `user-${process.pid}-${Date.now()}`;
    const refusalsBefore = await metric('relayflow_verification_rate_limit_refusals_total', { limit: 'per-ip', by: 'ip' });
    try {
      // Two starts with the IP, one on each instance: both go (max 2 per IP).
      for (const app of [undefined, other.app]) {
        const res = await startOn(app, { identity: spreadNumber(), method: 'sms', rateLimits: { ip } });
        assert.equal(res.statusCode, 201, res.body);
      }
      // The third, on either instance: 429 naming the limit, Retry-After, nothing started or sent.
      for (const app of [undefined, other.app]) {
        const identity = spreadNumber();
        const res = await startOn(app, { identity, method: 'sms', rateLimits: { ip, user: `fresh-${counter}` } });
        assert.equal(res.statusCode, 429, res.body);
        const { error } = res.json();
        assert.equal(error.code, 'rate_limited');
        assert.match(
          error.message,
          /^body\.rateLimits\.ip: at most 2 verifications per ip per 10 min \(limit per-ip\); retry in \d+ s; nothing was started or sent$/,
        );
        assert.equal(error.details[0].field, 'body.rateLimits.ip');
        assert.ok(!res.body.includes(ip), 'the answer does not repeat the IP');
        const retryAfter = Number(res.headers['retry-after']);
        assert.ok(retryAfter > 0 && retryAfter <= 600, `Retry-After ${res.headers['retry-after']}`);
        await nothingFor(identity);
      }
      assert.equal(await metric('relayflow_verification_rate_limit_refusals_total', { limit: 'per-ip', by: 'ip' }), refusalsBefore + 2);

      // The bucket is kept in the store under a keyed hash: neither its key nor anything stored holds the IP.
      const bucketKey = other.verifications.limits.bucketKey({ limit: other.verifications.limits.limits[0]!, value: ip, field: 'body.rateLimits.ip' });
      assert.ok(!bucketKey.includes(ip) && bucketKey.startsWith('rate:per-ip:'), bucketKey);
      const [bucket] = await h.store.sql.query<{ entries: unknown[] }>('SELECT entries FROM relayflow_verification_admissions WHERE key = $1', [bucketKey]);
      assert.equal(bucket?.entries.length, 2, 'the two admitted starts');
      const stored = JSON.stringify(await h.store.sql.query('SELECT key, entries FROM relayflow_verification_admissions'));
      assert.ok(!stored.includes(ip), 'the IP is not in the store');
      assert.ok(!stored.includes(Buffer.from(ip).toString('base64')), 'not even encoded');

      // By user: three go across the instances, the fourth is refused naming per-user.
      for (const app of [undefined, other.app, undefined]) {
        assert.equal((await startOn(app, { identity: spreadNumber(), method: 'sms', rateLimits: { user } })).statusCode, 201);
      }
      const fourth = await startOn(other.app, { identity: spreadNumber(), method: 'sms', rateLimits: { user } });
      assert.equal(fourth.statusCode, 429, fourth.body);
      assert.match(fourth.json().error.message, /^body\.rateLimits\.user: at most 3 verifications per user per 10 min \(limit per-user\)/);
    } finally {
      await other.app.close();
    }

    // A restart: a new instance, nothing in its memory, refuses both at once.
    const restarted = await verificationRoutesWith(h, { waitMs: 20_000 });
    try {
      for (const rateLimits of [{ ip }, { user }]) {
        const res = await startOn(restarted.app, { identity: spreadNumber(), method: 'sms', rateLimits });
        assert.equal(res.statusCode, 429, res.body);
        assert.equal(res.json().error.code, 'rate_limited');
      }
      // Keys of other values, and names no limit counts, go.
      const res = await startOn(restarted.app, { identity: spreadNumber(), method: 'sms', rateLimits: { ip: `${ip}-other`, session: 's-1' } });
      assert.equal(res.statusCode, 201, res.body);
    } finally {
      await restarted.app.close();
    }
  });

  test('bad keys are a 400 naming the field; the configured limits can be read', async () => {
    for (const [rateLimits, field] of [
      [{ IP: '1.2.3.4' }, 'body.rateLimits'],
      [{ ip: '' }, 'body.rateLimits.ip'],
      [{ ip: 'x'.repeat(257) }, 'body.rateLimits.ip'],
    ] as const) {
      const res = await h.api({ method: 'POST', url: '/v1/verifications', payload: { identity: spreadNumber(), method: 'sms', rateLimits } });
      assert.equal(res.statusCode, 400, res.body);
      assert.ok(
        res.json().error.details.some((d: { field: string }) => d.field.startsWith(field)),
        `${JSON.stringify(rateLimits)}: ${res.body}`,
      );
    }
    const read = await h.api({ method: 'GET', url: '/v1/verification-rate-limits' });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json().limits, [
      { id: 'per-ip', key: 'ip', max: 2, windowSeconds: 600 },
      { id: 'per-user', key: 'user', max: 3, windowSeconds: 600 },
    ]);
  });

  test('a pumping burst the sandbox makes to one prefix is blocked (nothing sent, counted, in the guard view) until an operator lifts it', async () => {
    const guardUrl = `/v1/verification-pumping-guards/${PUMPED_PREFIX}`;
    const refusedBefore = await metric('relayflow_verification_pumping_total', { prefix: PUMPED_PREFIX, decision: 'refused' });
    // One real user first: a code reported (a success the guard counts).
    const real = pumpedNumber();
    const started = await startVerification(h, { identity: real, method: 'sms' });
    const message = await messageFor(h, real, started.current!.verificationId);
    assert.equal((await report(h, started.processId, message.code!)).statusCode, 200);
    // Counted before each answer went out.
    const seen = (await h.api({ method: 'GET', url: guardUrl })).json();
    assert.equal(seen.starts, 1, JSON.stringify(seen));
    assert.equal(seen.successes, 1, JSON.stringify(seen));

    // The burst: the sandbox plays a pumping bot, starting verifications to the prefix one after another and never
    // reporting a code, until relayflow refuses one.
    const burst = await fetch(`${h.sandbox.url}/_sandbox/verification/pumping-traffic`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        relayflowUrl: h.apiUrl,
        apiKey: TEST_API_KEY,
        prefix: PUMPED_PREFIX,
        count: MIN_STARTS + 15,
        // Above the numbers pumpedNumber() gives (the file's counter stays far below 500): no number is both.
        from: 500,
        concurrency: 1,
        stopOnRefusal: true,
      }),
    });
    assert.equal(burst.status, 200);
    const tally = (await burst.json()) as { sent: number; answers: Record<string, number>; firstRefusal?: { index: number; code?: string } };
    assert.equal(tally.firstRefusal?.code, 'pumping_suspected', JSON.stringify(tally));
    // With one success of MIN_STARTS starts the conversion is under 0.5: blocked once there are enough starts.
    const accepted = 1 + (tally.answers['201'] ?? 0);
    assert.ok(accepted >= MIN_STARTS, `refused after only ${accepted} starts: ${JSON.stringify(tally)}`);
    assert.deepEqual(Object.keys(tally.answers).sort(), ['201', '429 pumping_suspected']);

    // The refusal as a caller sees it: 429 naming the guard, Retry-After, nothing started or sent, counted.
    const refusedNumber = pumpedNumber();
    const refused = await h.api({ method: 'POST', url: '/v1/verifications', payload: { identity: refusedNumber, method: 'sms' } });
    assert.equal(refused.statusCode, 429, refused.body);
    const { error } = refused.json();
    assert.equal(error.code, 'pumping_suspected');
    assert.match(
      error.message,
      new RegExp(
        `^body\\.identity: the pumping guard blocked numbers beginning \\+${PUMPED_PREFIX}: 1 of \\d+ verifications reported a code, under the floor of 50%; nothing was started or sent`,
      ),
    );
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 3000 && retryAfter <= 3600, `Retry-After ${refused.headers['retry-after']}: the rest of the 1 h window`);
    await nothingFor(refusedNumber);
    assert.equal(await metric('relayflow_verification_pumping_total', { prefix: PUMPED_PREFIX, decision: 'refused' }), refusedBefore + 2);
    // Another method that costs a call is refused too.
    assert.equal((await h.api({ method: 'POST', url: '/v1/verifications', payload: { identity: pumpedNumber(), method: 'callout' } })).statusCode, 429);

    // The guard's view: blocked, since when, until when, and the decision with its counts.
    const view = (await h.api({ method: 'GET', url: guardUrl })).json();
    assert.equal(view.blocked, true, JSON.stringify(view));
    assert.equal(view.decisions[0].kind, 'blocked');
    assert.equal(view.decisions[0].successes, 1);
    assert.ok(view.decisions[0].starts >= MIN_STARTS);
    assert.equal(Date.parse(view.blockedUntil) - Date.parse(view.blockedSince), 3_600_000);

    // Configured to move such starts to a cheaper method instead (RELAYFLOW_VERIFICATION_PUMPING_ACTION=flashcall):
    // an SMS start goes out as a FlashCall alone, counted as moved.
    const v = h.config.processes.verification;
    const moving = new VerificationService(
      h.client,
      { ...h.config, processes: { ...h.config.processes, verification: { ...v, pumping: { ...v.pumping, action: 'flashcall' } } } },
      subjectHasher(h.config.codecKeys),
      h.store.sql,
    );
    const movedNumber = pumpedNumber();
    const moved = await moving.start({ identity: movedNumber, steps: [{ method: 'sms' }, { method: 'callout' }], fallback: true });
    assert.equal(moved.outcome.state, 'PENDING');
    assert.equal(moved.outcome.current?.method, 'flashcall');
    assert.deepEqual(
      (await platformStarts(h, movedNumber)).map((st) => st.method),
      ['flashcall'],
    );
    assert.equal(await metric('relayflow_verification_pumping_total', { prefix: PUMPED_PREFIX, decision: 'moved' }), 1);

    // Lifting needs the admin scope; the lift names the API key and the note, and starts go again at once.
    const denied = await h.app.inject({ method: 'POST', url: `${guardUrl}/lift`, headers: { authorization: `Bearer ${READER}` }, payload: {} });
    assert.equal(denied.statusCode, 403, denied.body);
    const lifted = await h.api({ method: 'POST', url: `${guardUrl}/lift`, payload: { note: 'a marketing push, checked' } });
    assert.equal(lifted.statusCode, 200, lifted.body);
    const after = lifted.json();
    assert.equal(after.blocked, false);
    assert.equal(after.decisions[0].kind, 'lifted');
    assert.equal(after.decisions[0].note, 'a marketing push, checked');
    assert.match(after.decisions[0].by, /^[0-9a-f]{12}$/);
    assert.equal(after.starts, 0, 'counting afresh');
    assert.equal(await metric('relayflow_verification_pumping_total', { prefix: PUMPED_PREFIX, decision: 'lifted' }), 1);
    assert.equal((await startVerification(h, { identity: pumpedNumber(), method: 'sms' })).state, 'PENDING');

    // Another instance sees the lift within the cache time; a prefix nobody verified has nothing to lift.
    const other = await verificationRoutesWith(h, { waitMs: 20_000 });
    try {
      assert.equal((await startOn(other.app, { identity: pumpedNumber(), method: 'sms' })).statusCode, 201);
    } finally {
      await other.app.close();
    }
    assert.equal((await h.api({ method: 'POST', url: '/v1/verification-pumping-guards/99999999/lift', payload: {} })).statusCode, 404);
    assert.equal((await h.api({ method: 'GET', url: '/v1/verification-pumping-guards/+4673' })).statusCode, 400);
  });
});
