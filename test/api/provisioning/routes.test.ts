// The provisioning API's contract: validation errors that name the field and list valid values (and
// start nothing), 404s, and the webhook intake: signatures (unsigned, bad, stale: 401; replayed: its event's repeat),
// events for resources without a process kept and acknowledged, duplicates dropped, 503 when Temporal is down.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { ulid } from 'ulid';
import { buildApp } from '../../../api/app.js';
import { PROVISIONING_WEBHOOK_PATH } from '../../../contracts/callbacks.js';
import { AesGcmPayloadCodec } from '../../../common/codec.js';
import { loadConfig, SANDBOX_PROVISIONING_WEBHOOK_SECRET } from '../../../common/config.js';
import { createLogger } from '../../../common/logger.js';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { rcsBody, sandboxRequests, signedDelivery as signed, templateBody } from '../../helpers/provisioning.js';

interface ErrorReply {
  error: { code: string; message: string; details?: { field: string; rule: string; message: string }[] };
}

const header = (format: string, mediaType: string, sizeBytes: number) => ({ type: 'HEADER', format, example: { mediaType, sizeBytes } });
const body = { type: 'BODY', text: 'Hi' };
const buttons = (n: number, type = 'QUICK_REPLY') => ({ type: 'BUTTONS', buttons: Array.from({ length: n }, (_, i) => ({ type, text: `b${i}` })) });

const event = (resourceId: string, more: Record<string, unknown> = {}) => ({
  eventId: ulid(),
  projectId: 'sandbox-project',
  trigger: 'CHATA_TEMPLATE_COMMENT_ADDED',
  channel: 'CHATA',
  resourceType: 'TEMPLATE',
  resourceId,
  sequence: 1,
  eventTime: new Date().toISOString(),
  comment: 'a remark',
  details: {},
  ...more,
});

describe('provisioning API', () => {
  let h: Harness;
  let secret: string;
  before(async () => {
    h = await startHarness();
    secret = h.config.api.provisioningWebhookSecret!;
  });
  after(async () => h.close());

  const name = () => uniqueName('v').replace(/-/g, '_');
  const cases: Array<[string, string, Record<string, unknown>, string, RegExp, 400 | 422]> = [
    ['a template name over 512 characters', '/v1/templates/chata', templateBody('a'.repeat(513)), 'body.name', /512/, 400],
    [
      'an unknown category (valid ones listed)',
      '/v1/templates/chata',
      templateBody(name(), { category: 'PROMO' }),
      'body.category',
      /must be one of AUTHENTICATION, MARKETING, UTILITY/,
      400,
    ],
    [
      'an image header of the wrong type',
      '/v1/templates/chata',
      templateBody(name(), { components: [header('IMAGE', 'video/mp4', 10), body] }),
      'body.components.0.example.mediaType',
      /image\/jpeg, image\/png, image\/webp/,
      422,
    ],
    [
      'a video header over 16 MB',
      '/v1/templates/chatb',
      templateBody(name(), { components: [header('VIDEO', 'video/mp4', 17 * 1024 * 1024), body] }),
      'body.components.0.example.sizeBytes',
      /16 MB/,
      422,
    ],
    [
      'a document header over 100 MB',
      '/v1/templates/chata',
      templateBody(name(), { components: [header('DOCUMENT', 'application/pdf', 101 * 1024 * 1024), body] }),
      'body.components.0.example.sizeBytes',
      /100 MB/,
      422,
    ],
    [
      'more than 10 buttons',
      '/v1/templates/chata',
      templateBody(name(), { components: [body, buttons(11)] }),
      'body.components.1.buttons',
      /at most 10 buttons/,
      422,
    ],
    [
      'more than 2 URL buttons',
      '/v1/templates/chata',
      templateBody(name(), { components: [body, buttons(3, 'URL')] }),
      'body.components.1.buttons',
      /at most 2 URL buttons/,
      422,
    ],
    ['no BODY component', '/v1/templates/chata', templateBody(name(), { components: [{ type: 'FOOTER', text: 'bye' }] }), 'body.components', /BODY/, 422],
    [
      'a TTL on a MARKETING template',
      '/v1/templates/chata',
      templateBody(name(), { messageSendTtlSeconds: 60 }),
      'body.messageSendTtlSeconds',
      /AUTHENTICATION/,
      422,
    ],
    ['an unknown field', '/v1/templates/chata', templateBody(name(), { colour: 'blue' }), 'body.colour', /not a known field/, 400],
    [
      'a banner that is not 1440x448',
      '/v1/senders/rcs',
      rcsBody(uniqueName('B'), { banner: { url: 'https://example.com/b.png', width: 1400, height: 448 } }),
      'body.banner.width',
      /1440/,
      422,
    ],
    [
      'a website URL over 255 characters',
      '/v1/senders/rcs',
      rcsBody(uniqueName('B'), { websites: [{ url: `https://example.com/${'x'.repeat(240)}` }] }),
      'body.websites.0.url',
      /255/,
      400,
    ],
    ['a description over 512 characters', '/v1/senders/rcs', rcsBody(uniqueName('B'), { description: 'd'.repeat(513) }), 'body.description', /512/, 400],
    [
      'the old MULTI_USE use case (valid ones listed)',
      '/v1/senders/rcs',
      rcsBody(uniqueName('B'), { useCase: 'MULTI_USE' }),
      'body.useCase',
      /must be one of MULTIUSE, TRANSACTIONAL, PROMOTIONAL, OTP/,
      400,
    ],
    [
      'both launch contacts',
      '/v1/senders/rcs',
      rcsBody(uniqueName('B'), { contact: { email: 'a@example.com', phoneNumber: '+33612345678' } }),
      'body.contact',
      /exactly one/,
      422,
    ],
    [
      'a missing questionnaire answer (FR siren)',
      '/v1/senders/rcs',
      rcsBody(uniqueName('B'), { answers: { brand_description: 'x', message_types: 'x', opt_in: 'x', opt_out: 'x' } }),
      'body.answers.siren',
      /required/,
      422,
    ],
    [
      'an unknown CHATB category (valid ones listed)',
      '/v1/senders/chatb',
      { displayName: 'x', categoryCode: 'TOYS' },
      'body.categoryCode',
      /must be one of RETAIL, FINANCE, TRAVEL, HEALTH/,
      422,
    ],
    [
      'an unknown CHATA vertical (valid ones listed)',
      '/v1/senders/chata',
      { phoneNumber: '+33612345678', displayName: 'x', vertical: 'TOBACCO' },
      'body.vertical',
      /ALCOHOL, ONLINE_GAMBLING/,
      400,
    ],
    [
      'a phone number that is not E.164',
      '/v1/senders/chata',
      { phoneNumber: '0612345678', displayName: 'x' },
      'body.phoneNumber',
      /valid phone number in international format/,
      400,
    ],
    [
      'a number with the shape of E.164 that cannot exist',
      '/v1/senders/chata',
      { phoneNumber: '+1000000', displayName: 'x' },
      'body.phoneNumber',
      /valid phone number/,
      400,
    ],
  ];
  // 400: the request breaks the OpenAPI document; 422: the document allows it, a rule between fields or
  // one the platform sets refuses it. Both name the field and create nothing.
  for (const [what, url, payload, field, message, status] of cases) {
    test(`${what} is a ${status} naming ${field}`, async () => {
      const creates = (await sandboxRequests(h, 'POST', '/provisioning/v1/projects/')).filter((r) => !r.path.endsWith('/webhooks')).length;
      const res = await h.api({ method: 'POST', url, payload });
      assert.equal(res.statusCode, status, res.body);
      const err = res.json<ErrorReply>().error;
      assert.equal(err.code, 'validation_failed');
      const detail = err.details?.find((d) => d.field === field);
      assert.ok(detail, `${field} named in ${JSON.stringify(err.details)}`);
      assert.match(detail.message + err.message, message);
      const after = (await sandboxRequests(h, 'POST', '/provisioning/v1/projects/')).filter((r) => !r.path.endsWith('/webhooks')).length;
      assert.equal(after, creates, 'nothing created on the platform');
    });
  }

  test('a page size over 1000 is a 400 naming query.pageSize', async () => {
    const res = await h.api({ method: 'GET', url: '/v1/templates/chata?pageSize=1001' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json<ErrorReply>().error.details?.[0]?.field, 'query.pageSize');
    const kinds = await h.api({ method: 'GET', url: '/v1/processes?kind=chata-templates' });
    assert.equal(kinds.statusCode, 400);
    assert.match(kinds.json<ErrorReply>().error.message, /query\.kind/);
  });

  test('a template with the longest name is read by its own link (a process ID over 512 characters)', async () => {
    const longest = name().padEnd(512, 'x');
    const started = await h.api({ method: 'POST', url: '/v1/templates/chata', payload: templateBody(longest) });
    assert.equal(started.statusCode, 202, started.body);
    const { processId, links } = started.json<{ processId: string; links: { self: string } }>();
    assert.ok(processId.length > 512);
    const read = await h.api({ method: 'GET', url: links.self });
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(read.json<{ processId: string }>().processId, processId);
    await h.api({ method: 'POST', url: `${links.self}/stop`, payload: {} });
  });

  test('unknown processes and processes of another kind are 404s', async () => {
    const unknown = encodeURIComponent('chata-template:sandbox-project:nothing_here:en_US');
    assert.equal((await h.api({ method: 'GET', url: `/v1/templates/${unknown}` })).statusCode, 404);
    assert.equal((await h.api({ method: 'POST', url: `/v1/templates/${unknown}/resubmit`, payload: {} })).statusCode, 404);
    assert.equal((await h.api({ method: 'POST', url: `/v1/templates/${unknown}/stop`, payload: {} })).statusCode, 404);
    const subproject = encodeURIComponent('subproject:sandbox-project:x');
    assert.equal((await h.api({ method: 'GET', url: `/v1/templates/${subproject}` })).statusCode, 404, 'another kind is not looked up');
    assert.equal((await h.api({ method: 'GET', url: `/v1/senders/${subproject}` })).statusCode, 404);
    const chata = encodeURIComponent('chata-sender:sandbox-project:33612345678');
    assert.equal((await h.api({ method: 'POST', url: `/v1/senders/${chata}/relaunch`, payload: {} })).statusCode, 404, 'relaunch is for RCS senders only');
    assert.equal((await h.api({ method: 'GET', url: `/v1/provisioning/resources/CHATA/TEMPLATE/${ulid()}/events` })).statusCode, 404);
    const badChannel = await h.api({ method: 'GET', url: `/v1/provisioning/resources/SMS/TEMPLATE/${ulid()}/events` });
    assert.equal(badChannel.statusCode, 400);
    assert.match(badChannel.json<ErrorReply>().error.message, /CHATA, CHATB, RCS/);
  });

  test('the OpenAPI document describes the provisioning routes (not the signed intake)', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const path of [
      '/v1/templates/chata',
      '/v1/templates/chatb',
      '/v1/senders/rcs',
      '/v1/senders/chata',
      '/v1/senders/chata/embedded',
      '/v1/senders/chatb',
    ]) {
      assert.ok(doc.paths[path]?.post, `${path} documented`);
    }
    assert.ok(doc.paths['/v1/templates/{processId}/resubmit'].post);
    assert.ok(doc.paths['/v1/senders/{processId}/relaunch'].post);
    assert.equal(doc.paths[PROVISIONING_WEBHOOK_PATH], undefined);
  });

  test('the CHATB categories come from the platform', async () => {
    const res = await h.api({ method: 'GET', url: '/v1/senders/chatb/categories' });
    assert.equal(res.statusCode, 200);
    assert.ok(res.json().categories.some((c: { code: string }) => c.code === 'RETAIL'));
  });

  test("webhooks without a valid, fresh signature are 401s; a replay is dropped as its event's repeat", async () => {
    const e = event(ulid());
    const post = (p: { payload: string; headers: Record<string, string> }) => h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...p });
    const unsigned = await post({ payload: JSON.stringify(e), headers: { 'content-type': 'application/json' } });
    assert.equal(unsigned.statusCode, 401);
    assert.match(unsigned.json<ErrorReply>().error.message, /missing_signature/);
    const wrongSecret = await post(signed('not-the-secret', e));
    assert.equal(wrongSecret.statusCode, 401);
    assert.match(wrongSecret.json<ErrorReply>().error.message, /bad_signature/);
    const tampered = signed(secret, e);
    const altered = await post({ ...tampered, payload: tampered.payload.replace('a remark', 'another remark') });
    assert.equal(altered.statusCode, 401, 'the signature covers the raw body');
    const stale = await post(signed(secret, e, { timestamp: Math.floor(Date.now() / 1000) - 3_600 }));
    assert.equal(stale.statusCode, 401);
    assert.match(stale.json<ErrorReply>().error.message, /stale_timestamp/);
    const good = signed(secret, e);
    assert.equal((await post(good)).statusCode, 200);
    const replay = await post(good);
    assert.equal(replay.statusCode, 200, replay.body);
    assert.deepEqual(replay.json(), { duplicate: true });
  });

  test('an event for a resource with no process is kept and acknowledged; a redelivery is dropped as a duplicate', async () => {
    const resourceId = ulid();
    const e = event(resourceId);
    const post = (p: { payload: string; headers: Record<string, string> }) => h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...p });
    assert.equal((await post(signed(secret, e))).statusCode, 200);
    assert.deepEqual((await post(signed(secret, e))).json(), { duplicate: true }, 'a redelivery (new nonce, same eventId) is acknowledged as a repeat');
    const later = event(resourceId, { sequence: 2, trigger: 'CHATA_TEMPLATE_APPROVED', comment: undefined, details: { state: 'APPROVED' } });
    assert.equal((await post(signed(secret, later))).statusCode, 200);
    const deadline = Date.now() + 10_000;
    type Seen = {
      events: { eventId: string; inbox?: object; handedTo: unknown[] }[];
      processes: unknown[];
      inbox?: { received: number; duplicates: number; attached: unknown[] };
    };
    let seen: Seen | undefined;
    while (Date.now() < deadline) {
      const res = await h.api({ method: 'GET', url: `/v1/provisioning/resources/CHATA/TEMPLATE/${resourceId}/events` });
      if (res.statusCode === 200) {
        seen = res.json();
        if (seen!.inbox?.received === 2) break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(
      seen?.events.map((x) => x.eventId),
      [e.eventId, later.eventId],
    );
    assert.ok(
      seen?.events.every((x) => x.inbox && x.handedTo.length === 0),
      'kept by the inbox, handed to no process',
    );
    assert.equal(seen?.inbox?.duplicates, 0, 'the repeat never reached the inbox');
    assert.deepEqual(seen?.inbox?.attached, []);
    assert.deepEqual(seen?.processes, []);
  });

  test('a malformed but authentic event is a 400 naming the field', async () => {
    const res = await h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...signed(secret, event(ulid(), { channel: 'SMS' })) });
    assert.equal(res.statusCode, 400);
    assert.match(res.json<ErrorReply>().error.message, /body\.channel: must be one of CHATA, CHATB, RCS/);
  });

  test('with Temporal unreachable the intake answers 503 (the platform retries), and the same delivery is accepted later', async () => {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    await connection.close();
    const down = new Client({ connection });
    const app = await buildApp({
      config: h.config,
      client: down,
      codec: new AesGcmPayloadCodec(h.config.codecKeys),
      logger: createLogger({ name: 'test', level: 'silent' }),
    });
    try {
      const delivery = signed(secret, event(ulid()));
      const res = await app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...delivery });
      assert.equal(res.statusCode, 503, res.body);
      assert.ok(res.headers['retry-after']);
      const again = await app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...delivery });
      assert.equal(again.statusCode, 503, 'not dropped as a repeat: nothing was claimed');
      const ok = await h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...delivery });
      assert.equal(ok.statusCode, 200, 'the retried delivery goes through once Temporal answers');
    } finally {
      await app.close();
    }
  });
});

describe('provisioning configuration', () => {
  const base = {
    RELAYFLOW_API_KEYS: 'k'.repeat(24),
    RELAYFLOW_CODEC_KEYS: 'k1:' + Buffer.alloc(32).toString('base64'),
    PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
  };

  test('defaults: poll every 5 minutes, overdue after 7 days, the sandbox secret in sandbox mode', () => {
    const c = loadConfig(base);
    assert.deepEqual(c.processes.provisioning, { pollIntervalMs: 300_000, overdueAfterMs: 7 * 86_400_000, inboxIdleMs: 30 * 86_400_000 });
    assert.equal(c.api.provisioningWebhookSecret, SANDBOX_PROVISIONING_WEBHOOK_SECRET);
  });

  test('malformed values stop the start with the variable named', () => {
    assert.throws(
      () => loadConfig({ ...base, RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: 'soon' }),
      /RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: must be a whole number/,
    );
    assert.throws(() => loadConfig({ ...base, RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS: '5' }), /RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS: must be between/);
    assert.throws(
      () => loadConfig({ ...base, RELAYFLOW_PROVISIONING_WEBHOOK_SECRET: 'short' }),
      /RELAYFLOW_PROVISIONING_WEBHOOK_SECRET: must be 8 to 256 characters/,
    );
    assert.equal(loadConfig({ ...base, RELAYFLOW_PROVISIONING_WEBHOOK_SECRET: 'a-real-secret' }).api.provisioningWebhookSecret, 'a-real-secret');
  });
});
