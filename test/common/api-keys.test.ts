// The keys file and how start-up reads it: every error names the file and line, never the key.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { countByScope, loadApiKeys, parseKeysFile } from '../../common/api-keys.js';
import { generateCodecKey } from '../../common/codec.js';
import { loadConfig } from '../../common/config.js';

const K1 = 'first-key-0123456789abcdefgh';
const K2 = 'second-key-0123456789abcdefg';

describe('API keys file', () => {
  test('one "<key> <scope> [<per minute>]" a line; comments and blank lines skipped', () => {
    const entries = parseKeysFile(`# team keys\n\n${K1} read-only\n  ${K2}\toperator  120 \r\n`, 'keys');
    assert.deepEqual(entries, [
      { key: K1, scope: 'read-only' },
      { key: K2, scope: 'operator', perMinute: 120 },
    ]);
    assert.deepEqual(countByScope(entries), { 'read-only': 1, operator: 1, admin: 0 });
  });

  test('a line may end in tenant=<customer>, before or after the limit', () => {
    assert.deepEqual(parseKeysFile(`${K1} operator tenant=acme\n${K2} read-only tenant=globex_2 60\n`, 'keys'), [
      { key: K1, scope: 'operator', tenant: 'acme' },
      { key: K2, scope: 'read-only', perMinute: 60, tenant: 'globex_2' },
    ]);
  });

  const broken: Array<[string, string, RegExp]> = [
    ['a missing scope', `${K1} read-only\n${K2}\n`, /^keys line 2: .*the scope is missing/],
    ['an unknown scope', `${K1} root\n`, /^keys line 1: unknown scope "root" \(one of read-only, operator, admin\)/],
    ['a short key', 'short-key operator\n', /^keys line 1: the key must be at least 24 characters/],
    ['a bad limit', `${K1} operator fast\n`, /^keys line 1: requests per minute must be a whole number/],
    ['a zero limit', `${K1} operator 0\n`, /^keys line 1: requests per minute/],
    ['extra fields', `${K1} operator 10 admin\n`, /^keys line 1: .*found 4 fields/],
    ['a bad tenant', `${K1} operator tenant=a'b\n`, /^keys line 1: the tenant must be 1 to 64 letters, digits/],
    ['an empty tenant', `${K1} operator tenant=\n`, /^keys line 1: the tenant must be/],
    ['two tenants', `${K1} operator tenant=a tenant=b\n`, /^keys line 1: .*found 4 fields/],
    ['a repeated key', `${K1} operator\n#\n${K1} admin\n`, /^keys line 3: the same key as line 1/],
  ];
  for (const [what, text, message] of broken) {
    test(`${what} names the line, not the key`, () => {
      assert.throws(
        () => parseKeysFile(text, 'keys'),
        (err: Error) => {
          assert.match(err.message, message);
          assert.ok(!err.message.includes(K1) && !err.message.includes('short-key'), err.message);
          return true;
        },
      );
    });
  }
});

describe('API keys at start-up', () => {
  let dir: string;
  const base = { RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'), PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010' };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'relayflow-keys-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('RELAYFLOW_API_KEYS are admin keys, the file adds scoped ones; the rate limit defaults to 600 a minute', async () => {
    const file = join(dir, 'ok');
    await writeFile(file, `${K2} read-only 60\n`);
    const c = loadConfig({ ...base, RELAYFLOW_API_KEYS: K1, RELAYFLOW_API_KEYS_FILE: file });
    assert.deepEqual(c.api.keys, [
      { key: K1, scope: 'admin' },
      { key: K2, scope: 'read-only', perMinute: 60 },
    ]);
    assert.equal(c.api.rateLimitPerMinute, 600);
    assert.deepEqual(loadConfig({ ...base, RELAYFLOW_API_KEYS: K1 }).api.keys, [{ key: K1, scope: 'admin' }], 'the format before scopes');
    assert.deepEqual(
      loadConfig({ ...base, RELAYFLOW_API_KEYS_FILE: file }).api.keys.map((k) => k.scope),
      ['read-only'],
      'a file alone will do',
    );
  });

  test('a bad file, a missing one, an empty one, or a key in both stops start-up naming the variable', async () => {
    const bad = join(dir, 'bad');
    await writeFile(bad, `${K2} operator\n${K1} boss\n`);
    assert.throws(
      () => loadConfig({ ...base, RELAYFLOW_API_KEYS: K1, RELAYFLOW_API_KEYS_FILE: bad }),
      /RELAYFLOW_API_KEYS_FILE: .*bad line 2: unknown scope "boss"/,
    );
    assert.throws(() => loadConfig({ ...base, RELAYFLOW_API_KEYS_FILE: join(dir, 'nope') }), /RELAYFLOW_API_KEYS_FILE: .*nope: cannot be read \(ENOENT\)/);
    const empty = join(dir, 'empty');
    await writeFile(empty, '# nobody yet\n');
    assert.throws(() => loadConfig({ ...base, RELAYFLOW_API_KEYS_FILE: empty }), /RELAYFLOW_API_KEYS_FILE: no API keys/);
    const both = join(dir, 'both');
    await writeFile(both, `${K1} read-only\n`);
    assert.throws(() => loadKeys([K1], both), /both line 1: the key is also in RELAYFLOW_API_KEYS/);
    assert.throws(
      () => loadConfig({ ...base, RELAYFLOW_RATE_LIMIT_PER_MINUTE: '0', RELAYFLOW_API_KEYS: K1 }),
      /RELAYFLOW_RATE_LIMIT_PER_MINUTE: must be between 1/,
    );
  });
});

const loadKeys = (envKeys: string[], file: string) => loadApiKeys({ envKeys, file });
