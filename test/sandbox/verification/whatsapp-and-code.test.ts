// The sandbox's verification wire for the options peers offer: the whatsapp method (start, delivery, report, an application without
// it), the code options (codeType, codeLength) of sms and whatsapp, and the SMS template's `sms.locale`.
import { test, describe, after, before, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { signApplicationRequest } from '../../../common/signing.js';
import { createSandbox, defaultSandboxAccount, type Sandbox } from '../../../sandbox/index.js';

const account = defaultSandboxAccount();
const BASE = '/verification/verification/v1/verifications';
const CONTENT_TYPE = 'application/json; charset=UTF-8';
const NUMBER = '+46700000001';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

async function call(sb: Sandbox, method: string, url: string, body?: unknown): Promise<{ status: number; headers: Record<string, unknown>; body: Body }> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const signed = signApplicationRequest({ appKey: account.appKey, appSecret: account.appSecret, method, path: url, contentType: CONTENT_TYPE, body: payload });
  const res = await sb.app.inject({ method: method as 'GET', url, headers: signed, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, headers: res.headers, body: res.body ? (res.json() as Body) : {} };
}

const start = (sb: Sandbox, body: Body, endpoint = NUMBER) => call(sb, 'POST', BASE, { identity: { type: 'number', endpoint }, ...body });

async function phone(sb: Sandbox, endpoint = NUMBER): Promise<Body[]> {
  const res = await sb.app.inject({ method: 'GET', url: `/_sandbox/verification/phones/${encodeURIComponent(endpoint)}` });
  return (res.json() as { messages: Body[] }).messages;
}

describe('sandbox verification: whatsapp, code options, sms.locale', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await createSandbox({});
  });
  beforeEach(async () => {
    await sb.app.inject({ method: 'POST', url: '/_sandbox/reset' });
  });
  after(() => sb.close());

  test('whatsapp: the start answers its codeType, the phone gets the code by WhatsApp, a report verifies', async () => {
    const started = await start(sb, { method: 'whatsapp', whatsapp: { codeType: 'Alpha', codeLength: 7 } });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.equal(started.body.method, 'whatsapp');
    assert.deepEqual(started.body.whatsapp, { codeType: 'Alpha' });
    const [message] = await phone(sb);
    assert.equal(message!.kind, 'whatsapp');
    assert.match(message!.code, /^[A-Z]{7}$/);
    assert.match(message!.text, new RegExp(`${message!.code}$`));
    const wrong = await call(sb, 'PUT', `${BASE}/id/${started.body.id}`, { method: 'whatsapp', whatsapp: { code: 'AAAAAAA' } });
    assert.equal(wrong.body.status, message!.code === 'AAAAAAA' ? 'SUCCESSFUL' : 'FAIL');
    const right = await call(sb, 'PUT', `${BASE}/id/${started.body.id}`, { method: 'whatsapp', whatsapp: { code: message!.code } });
    assert.equal(right.status, 200, JSON.stringify(right.body));
    assert.equal(right.body.status, 'SUCCESSFUL');
    const mismatch = await call(sb, 'PUT', `${BASE}/id/${started.body.id}`, { method: 'sms', sms: { code: message!.code } });
    assert.equal(mismatch.status, 400);
  });

  test('an application without WhatsApp refuses a whatsapp start with 403 40300, keeps nothing and sends nothing', async () => {
    const off = await sb.app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { whatsappEnabled: false } });
    assert.equal(off.statusCode, 200);
    assert.equal(off.json().whatsappEnabled, false);
    const refused = await start(sb, { method: 'whatsapp', reference: 'wa-off' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errorCode, 40300);
    assert.match(refused.body.message, /^Method not enabled/);
    assert.equal((await call(sb, 'GET', `${BASE}/reference/wa-off`)).status, 404);
    assert.deepEqual(await phone(sb), []);
    assert.equal((await start(sb, { method: 'sms' })).status, 200, 'the other methods still start');
  });

  test('codeType and codeLength shape the SMS code; the default stays the type’s own length', async () => {
    const cases: Array<[Body, RegExp]> = [
      [{}, /^\d{4}$/],
      [{ codeLength: 9 }, /^\d{9}$/],
      [{ codeType: 'Alphanumeric', codeLength: 10 }, /^[A-Z0-9]{10}$/],
      [{ codeType: 'Alpha' }, /^[A-Z]{5}$/],
    ];
    for (const [sms, shape] of cases) {
      const started = await start(sb, { method: 'sms', sms });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      assert.match((await phone(sb)).at(-1)!.code, shape, JSON.stringify(sms));
    }
  });

  test('bad options are 40001 naming the field', async () => {
    const cases: Array<[Body, string]> = [
      [{ method: 'sms', sms: { codeLength: 3 } }, 'sms.codeLength'],
      [{ method: 'sms', sms: { codeLength: 11 } }, 'sms.codeLength'],
      [{ method: 'whatsapp', whatsapp: { codeType: 'Emoji' } }, 'whatsapp.codeType'],
      [{ method: 'whatsapp', whatsapp: { template: 'x' } }, 'whatsapp.template'],
      [{ method: 'sms', whatsapp: { codeType: 'Numeric' } }, 'whatsapp'],
      [{ method: 'sms', sms: { locale: 'not a locale' } }, 'sms.locale'],
    ];
    for (const [body, field] of cases) {
      const res = await start(sb, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.errorCode, 40001);
      assert.ok(res.body.message.startsWith(`${field}:`), `${field}: ${res.body.message}`);
    }
  });

  test('sms.locale picks the template and wins over the carrier rule and Accept-Language; one without a template does not', async () => {
    const french = '+33612345678';
    const asked = await call(sb, 'POST', BASE, { identity: { type: 'number', endpoint: french }, method: 'sms', sms: { locale: 'es-ES' } });
    assert.equal(asked.headers['content-language'], 'es-ES');
    assert.match((await phone(sb, french)).at(-1)!.text, /^Tu código de verificación es /);
    const status = await call(sb, 'GET', `${BASE}/id/${asked.body.id}`);
    assert.equal(status.body.language, 'es-ES');
    const unknown = await call(sb, 'POST', BASE, { identity: { type: 'number', endpoint: french }, method: 'sms', sms: { locale: 'ja-JP' } });
    assert.equal(unknown.status, 200);
    assert.equal(unknown.headers['content-language'], 'fr-FR', 'no ja-JP template: the usual rules choose');
  });
});
