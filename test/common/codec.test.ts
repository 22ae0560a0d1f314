import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import proto from '@temporalio/proto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  METADATA_KEY_ID,
  generateCodecKey,
  loadOrCreateDevCodecKeys,
  parseCodecKeys,
  type CodecKey,
} from '../../common/codec.js';
import { createDataConverter } from '../../common/data-converter.js';
import codecRoutes from '../../api/routes/codec.js';
import { errorHandlerPlugin } from '../../api/plugins/error-handler.js';

const PHONE = '+46701234567';
const key = (id: string): CodecKey => ({ id, key: randomBytes(32) });
const text = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('utf8');
const toPayload = (v: unknown): Payload => defaultPayloadConverter.toPayload(v)!;
const fromPayload = (p: Payload): unknown => defaultPayloadConverter.fromPayload(p);

describe('AesGcmPayloadCodec', () => {
  const k1 = key('k1');
  const codec = new AesGcmPayloadCodec([k1]);

  it('round-trips payloads, metadata included', async () => {
    const original = [toPayload({ phoneNumber: PHONE, code: '1234' }), toPayload(null), toPayload('x')];
    const encoded = await codec.encode(original);
    for (const p of encoded) {
      assert.equal(text(p.metadata?.encoding), ENCRYPTED_ENCODING);
      assert.equal(text(p.metadata?.[METADATA_KEY_ID]), 'k1');
    }
    const decoded = await codec.decode(encoded);
    assert.deepEqual(decoded.map(fromPayload), [{ phoneNumber: PHONE, code: '1234' }, null, 'x']);
    assert.equal(text(decoded[0]!.metadata?.encoding), 'json/plain');
  });

  it('hides the plaintext and uses a fresh IV each time', async () => {
    const [a, b] = await codec.encode([toPayload(PHONE), toPayload(PHONE)]);
    const bytes = Buffer.from(a!.data!);
    assert.equal(bytes.includes(Buffer.from(PHONE)), false);
    assert.equal(bytes.includes(Buffer.from('46701234567')), false);
    assert.equal(Buffer.from(a!.data!).equals(Buffer.from(b!.data!)), false);
    // iv | ciphertext of the whole serialized payload (GCM adds no padding) | tag
    const serialized = proto.temporal.api.common.v1.Payload.encode(toPayload(PHONE)).finish();
    assert.equal(bytes.length, 12 + serialized.length + 16);
  });

  it('does not encrypt an already encrypted payload twice, and passes plain payloads through decode', async () => {
    const [once] = await codec.encode([toPayload(PHONE)]);
    const [twice] = await codec.encode([once!]);
    assert.equal(twice, once);
    const plain = toPayload('plain');
    assert.deepEqual(await codec.decode([plain]), [plain]);
  });

  it('rotates: the first key encrypts, older keys still decrypt', async () => {
    const k2 = key('k2');
    const [old] = await codec.encode([toPayload(PHONE)]);
    const rotated = new AesGcmPayloadCodec([k2, k1]);
    assert.equal(fromPayload((await rotated.decode([old!]))[0]!), PHONE);
    const [fresh] = await rotated.encode([toPayload(PHONE)]);
    assert.equal(text(fresh!.metadata?.[METADATA_KEY_ID]), 'k2');
    await assert.rejects(codec.decode([fresh!]), /unknown encryption key id "k2"/);
  });

  it('fails on tampered data, and never returns it', async () => {
    const [enc] = await codec.encode([toPayload(PHONE)]);
    for (const index of [0, 20, enc!.data!.length - 1]) {
      const data = Buffer.from(enc!.data!);
      data[index] = data[index]! ^ 0x01;
      await assert.rejects(codec.decode([{ ...enc!, data }]), /failed authentication/);
    }
    await assert.rejects(codec.decode([{ ...enc!, data: Buffer.alloc(10) }]), /truncated/);
    const wrongKey = new AesGcmPayloadCodec([{ id: 'k1', key: randomBytes(32) }]);
    await assert.rejects(wrongKey.decode([enc!]), /failed authentication/);
  });

  it('rejects bad key sets at construction', () => {
    assert.throws(() => new AesGcmPayloadCodec([]), /at least one key/);
    assert.throws(() => new AesGcmPayloadCodec([{ id: 'a', key: randomBytes(16) }]), /32 bytes \(got 16\)/);
    assert.throws(() => new AesGcmPayloadCodec([key('a'), key('a')]), /more than once/);
  });

  it('is what createDataConverter installs', async () => {
    const dc = createDataConverter([k1]);
    assert.equal(dc.payloadCodecs?.length, 1);
    const [enc] = await dc.payloadCodecs![0]!.encode([toPayload(PHONE)]);
    assert.equal(fromPayload((await codec.decode([enc!]))[0]!), PHONE);
  });
});

describe('parseCodecKeys', () => {
  const V = 'RELAYFLOW_CODEC_KEYS';
  const b64 = (n: number) => randomBytes(n).toString('base64');

  it('parses one or more keys, first one first', () => {
    const a = b64(32);
    const b = b64(32);
    const keys = parseCodecKeys(` k2:${a} , k1.old_v-1:${b} `, V);
    assert.deepEqual(
      keys.map((k) => k.id),
      ['k2', 'k1.old_v-1'],
    );
    assert.deepEqual(keys[0]!.key, Buffer.from(a, 'base64'));
    assert.equal(keys[1]!.key.length, 32);
  });

  const secret = b64(32);
  const cases: Array<[string, string, RegExp]> = [
    ['empty', '  ', /^RELAYFLOW_CODEC_KEYS: must be set to "id:base64key/],
    ['empty entry', `k1:${secret},`, /^RELAYFLOW_CODEC_KEYS: entry 2 is empty/],
    ['no colon', secret, /^RELAYFLOW_CODEC_KEYS: entry 1 must have the form "id:base64key"/],
    ['empty id', `:${secret}`, /^RELAYFLOW_CODEC_KEYS: entry 1 has an invalid key id: ids must be non-empty and match/],
    ['bad id chars', `k 1/x:${secret}`, /^RELAYFLOW_CODEC_KEYS: entry 1 has an invalid key id/],
    ['short key', `k1:${b64(16)}`, /^RELAYFLOW_CODEC_KEYS: key "k1" must be 32 bytes of base64 \(got 16\)$/],
    ['long key', `k1:${b64(33)}`, /^RELAYFLOW_CODEC_KEYS: key "k1" must be 32 bytes of base64 \(got 33\)$/],
    ['not base64', `k1:${secret.slice(0, -4)}!!!!`, /^RELAYFLOW_CODEC_KEYS: key "k1" must be 32 bytes of base64 \(not valid base64\)$/],
    ['duplicate id', `k1:${secret},k1:${b64(32)}`, /^RELAYFLOW_CODEC_KEYS: key id "k1" appears more than once: ids must be unique$/],
  ];
  for (const [name, value, expected] of cases) {
    it(`rejects ${name}, naming the variable and the rule, without key material`, () => {
      assert.throws(
        () => parseCodecKeys(value, V),
        (err: Error) => {
          assert.match(err.message, expected);
          assert.equal(err.message.includes(secret), false);
          assert.equal(err.message.includes(secret.slice(0, 12)), false);
          return true;
        },
      );
    });
  }

  it('accepts what generateCodecKey produces', () => {
    const [k] = parseCodecKeys(generateCodecKey('gen'), V);
    assert.equal(k!.id, 'gen');
    assert.equal(k!.key.length, 32);
    assert.match(generateCodecKey(), /^k\d{8}-[0-9a-f]{6}:/);
    assert.notEqual(generateCodecKey('a'), generateCodecKey('a'));
    assert.throws(() => generateCodecKey('bad id'), /must match/);
  });
});

describe('loadOrCreateDevCodecKeys', () => {
  it('creates the file once (0600) and reuses it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relayflow-codec-'));
    try {
      const dataDir = join(dir, 'nested', '.relayflow');
      const first = await loadOrCreateDevCodecKeys(dataDir);
      const file = join(dataDir, 'codec-keys');
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal((await readFile(file, 'utf8')).trim(), first);
      assert.equal(parseCodecKeys(first, 'x').length, 1);
      assert.equal(await loadOrCreateDevCodecKeys(dataDir), first);
      // Concurrent first starts agree on one key.
      const other = join(dir, 'race');
      const all = await Promise.all(Array.from({ length: 5 }, () => loadOrCreateDevCodecKeys(other)));
      assert.equal(new Set(all).size, 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('codec routes', () => {
  const UI = 'http://localhost:8080';
  const codec = new AesGcmPayloadCodec([key('k1')]);
  const build = async () => {
    const app = Fastify();
    // The app's error handler: the routes declare their errors as the API's ErrorBody.
    await app.register(errorHandlerPlugin);
    await app.register(codecRoutes, { codec, allowedOrigins: [UI] });
    return app;
  };
  const json = (p: Payload) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p.data ?? []).toString('base64'),
  });

  it('encodes then decodes back to the same payloads', async () => {
    const app = await build();
    const input = [json(toPayload({ phoneNumber: PHONE })), json(toPayload(42))];
    const enc = await app.inject({ method: 'POST', url: '/codec/encode', payload: { payloads: input } });
    assert.equal(enc.statusCode, 200);
    const encoded = enc.json().payloads;
    assert.equal(Buffer.from(encoded[0].metadata.encoding, 'base64').toString(), ENCRYPTED_ENCODING);
    assert.equal(enc.body.includes(Buffer.from(PHONE).toString('base64')), false);
    const dec = await app.inject({ method: 'POST', url: '/codec/decode', payload: { payloads: encoded } });
    assert.equal(dec.statusCode, 200);
    assert.deepEqual(dec.json(), { payloads: input });
    await app.close();
  });

  it('answers 400 on a bad body and 422 when the codec refuses', async () => {
    const app = await build();
    for (const payload of [{}, { payloads: 'x' }, { payloads: [{ data: 'not base64!' }] }, { payloads: [{ metadata: { encoding: 5 } }] }]) {
      const res = await app.inject({ method: 'POST', url: '/codec/decode', payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
    }
    const [foreign] = await new AesGcmPayloadCodec([key('other')]).encode([toPayload(PHONE)]);
    const res = await app.inject({ method: 'POST', url: '/codec/decode', payload: { payloads: [json(foreign!)] } });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().error.code, 'codec_failed');
    assert.match(res.json().error.message, /unknown encryption key id "other"/);
    await app.close();
  });

  it('allows the CORS preflight for a listed origin only', async () => {
    const app = await build();
    const preflight = (origin: string) =>
      app.inject({
        method: 'OPTIONS',
        url: '/codec/decode',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
      });
    const ok = await preflight(UI);
    assert.equal(ok.statusCode, 204);
    assert.equal(ok.headers['access-control-allow-origin'], UI);
    assert.equal(ok.headers['access-control-allow-credentials'], 'true');
    assert.equal(ok.headers['access-control-allow-headers'], 'content-type, authorization, x-namespace');
    assert.match(String(ok.headers['access-control-allow-methods']), /POST/);

    const evil = await preflight('http://evil.example');
    for (const h of Object.keys(evil.headers)) assert.equal(h.startsWith('access-control-'), false, h);

    const post = await app.inject({ method: 'POST', url: '/codec/encode', headers: { origin: UI }, payload: { payloads: [] } });
    assert.equal(post.headers['access-control-allow-origin'], UI);
    const postEvil = await app.inject({ method: 'POST', url: '/codec/encode', headers: { origin: 'http://evil.example' }, payload: { payloads: [] } });
    assert.equal(postEvil.headers['access-control-allow-origin'], undefined);
    await app.close();
  });

  it('keeps an outer auth hook in force (the plugin does not bypass it)', async () => {
    const app = Fastify();
    app.addHook('onRequest', async (req, reply) => {
      if (req.headers.authorization !== 'Bearer good') return reply.code(401).send({ error: 'unauthorized' });
    });
    await app.register(codecRoutes, { codec, allowedOrigins: [UI] });
    const denied = await app.inject({ method: 'POST', url: '/codec/decode', headers: { origin: UI }, payload: { payloads: [] } });
    assert.equal(denied.statusCode, 401);
    // The UI can still read the 401 instead of an opaque CORS failure.
    assert.equal(denied.headers['access-control-allow-origin'], UI);
    const allowed = await app.inject({ method: 'POST', url: '/codec/decode', headers: { authorization: 'Bearer good' }, payload: { payloads: [] } });
    assert.equal(allowed.statusCode, 200);
    await app.close();
  });
});
