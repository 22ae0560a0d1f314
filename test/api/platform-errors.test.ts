// The one mapping of platform errors to HTTP (api/platform-errors.ts, docs/errors.md): each platform error
// class to its status and code, and a platform that refuses relayflow's credentials answered as 502
// platform_auth_failed on every route family that calls it (sender ID and voice alike), declared in the document.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../../api/errors.js';
import { platformError } from '../../api/platform-errors.js';
import {
  PlatformAuthError,
  PlatformConflictError,
  PlatformDeniedError,
  PlatformError,
  PlatformNotFoundError,
  PlatformRateLimitError,
  PlatformUnavailableError,
  PlatformValidationError,
  type PlatformErrorInit,
} from '../../platform/errors.js';
import { offlineApp, type OfflineApp } from '../helpers/offline-app.js';

const init = (area: PlatformErrorInit['area'], httpStatus: number | undefined, extra: Partial<PlatformErrorInit> = {}): PlatformErrorInit => ({
  area,
  httpStatus,
  code: `HTTP_${httpStatus}`,
  message: `${area} ${httpStatus}`,
  ...extra,
});

describe("platform errors in the API's words", () => {
  const cases: Array<[string, PlatformError, number, string, number | undefined]> = [
    ['not found', new PlatformNotFoundError(init('voice', 404)), 404, 'not_found', undefined],
    ['conflict', new PlatformConflictError(init('senderid', 409)), 409, 'not_allowed', undefined],
    ['a refused request', new PlatformValidationError(init('voice', 400)), 422, 'platform_rejected', undefined],
    ["relayflow's credentials refused (voice)", new PlatformAuthError(init('voice', 401)), 502, 'platform_auth_failed', undefined],
    ["relayflow's credentials refused (sender ID)", new PlatformAuthError(init('senderid', 403)), 502, 'platform_auth_failed', undefined],
    ["relayflow's token refused", new PlatformAuthError(init('auth', 401)), 502, 'platform_auth_failed', undefined],
    ['a verification denied', new PlatformDeniedError(init('verification', 403)), 422, 'platform_rejected', undefined],
    ["another 4xx (the platform router's 414)", new PlatformError(init('voice', 414)), 422, 'platform_rejected', undefined],
    [
      "rate limited, with the platform's wait",
      new PlatformRateLimitError(init('senderid', 429, { retryAfterMs: 12_000 })),
      503,
      'platform_unavailable',
      12_000,
    ],
    ['unavailable', new PlatformUnavailableError(init('voice', 503)), 503, 'platform_unavailable', 5_000],
    ['no answer at all', new PlatformUnavailableError(init('senderid', undefined, { code: 'TIMEOUT' })), 503, 'platform_unavailable', 5_000],
  ];
  for (const [name, err, status, code, retryAfterMs] of cases) {
    test(`${name}: ${status} ${code}`, () => {
      const mapped = platformError(err, 'the thing');
      assert.ok(mapped instanceof ApiError);
      assert.equal(mapped.statusCode, status);
      assert.equal(mapped.code, code);
      assert.equal(mapped.retryAfterMs, retryAfterMs);
    });
  }

  test("sender ID violations name the request's fields (422 validation_failed)", () => {
    const err = new PlatformValidationError(
      init('senderid', 400, { details: [{ field: 'requestDetails[0].value', rule: 'pattern', description: 'must be digits' }] }),
    );
    const mapped = platformError(err, 'registration') as ApiError;
    assert.equal(mapped.statusCode, 422);
    assert.equal(mapped.code, 'validation_failed');
    assert.deepEqual(mapped.details, [{ field: 'body.requestDetails[0].value', rule: 'pattern', message: 'must be digits' }]);
  });

  test('anything else passes through unchanged', () => {
    const api = new ApiError(409, 'process_ended', 'ended');
    const bug = new TypeError('a bug');
    assert.equal(platformError(api, 'x'), api);
    assert.equal(platformError(bug, 'x'), bug);
  });
});

describe("a platform that refuses relayflow's credentials", () => {
  let offline: OfflineApp;
  before(async () => {
    // Every platform address answers 401, the OAuth token endpoint included.
    offline = await offlineApp((_req, res) => {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 401, message: 'Unauthorized', status: 'UNAUTHENTICATED' } }));
    });
  });
  after(() => offline?.close());

  for (const url of [
    '/v1/senderid/markets',
    '/v1/senderid/policies/policy-1',
    '/v1/voice/numbers',
    '/v1/voice/conferences/conf-1',
    '/v1/voice/callback-urls',
  ]) {
    test(`GET ${url}: 502 platform_auth_failed, no Retry-After, declared in the document`, async () => {
      const res = await offline.api('GET', url);
      assert.equal(res.statusCode, 502, res.body);
      assert.equal(res.json().error.code, 'platform_auth_failed');
      assert.match(res.json().error.message, /refused relayflow's credentials/);
      assert.equal(res.headers['retry-after'], undefined);
      const doc = (await offline.api('GET', '/docs/json')).json();
      const path = url.replace('policy-1', '{policyId}').replace('conf-1', '{conferenceId}');
      assert.ok(doc.paths[path].get.responses['502'], `${path} declares 502`);
    });
  }
});
