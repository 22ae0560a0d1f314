// classifySendError (platform/send-errors.ts): what a failed send of one message means for a batch.
// throttled: slow down (after retryAfterMs when known); not_sent: the platform never got it, send again;
// in_doubt: it may have been accepted, look before sending again; recipient_rejected: skip this recipient;
// campaign_refused: stop the campaign until someone fixes something.
// Errors are built the way the clients build them: platformErrorFromResponse for answers, and real
// PlatformHttp requests against a local stub for answers that never came.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PlatformHttp } from '../../platform/http.js';
import {
  PlatformAuthError,
  PlatformError,
  PlatformNotFoundError,
  PlatformRateLimitError,
  PlatformUnavailableError,
  PlatformValidationError,
  platformErrorFromResponse,
  type PlatformInterface,
} from '../../platform/errors.js';
import { classifySendError, type SendErrorClass, type SendErrorKind } from '../../platform/send-errors.js';
import { closedPort, listenStub } from '../helpers/stub-server.js';

const conversation = (status: number, statusName: string, message: string, details: unknown[] = [], headers: Record<string, string> = {}) =>
  platformErrorFromResponse({ area: 'conversation', status, headers, body: { error: { code: status, message, status: statusName, details } } });

const mms = (status: number, code: string, info = `${code} happened`, headers: Record<string, string> = {}) =>
  platformErrorFromResponse({ area: 'mms', status, headers, body: { status: 'Failure', 'error-code': code, 'error-info': info } });

const kindOf = (err: unknown): SendErrorKind => classifySendError(err).kind;

/** Stub answering every request with `reply` (which may leave it unanswered or hang up). */
const startStub = (t: TestContext, reply: (req: IncomingMessage, res: ServerResponse) => void) => listenStub(t, reply);

/** What PlatformHttp throws for one POST (the way a client sends a message). */
async function sendError(url: string, area: PlatformInterface = 'conversation', timeoutMs = 2000): Promise<unknown> {
  const http = new PlatformHttp({ timeoutMs });
  return http.request({ area, method: 'POST', url, json: { message: 'hi' } }).then(
    () => assert.fail('the request should have failed'),
    (err: unknown) => err,
  );
}

test('429 with Retry-After: throttled, with the wait in ms', async (t) => {
  const c = classifySendError(conversation(429, 'RESOURCE_EXHAUSTED', 'too many', [], { 'retry-after': '7' }));
  assert.deepEqual(c, { kind: 'throttled', code: 'RESOURCE_EXHAUSTED', message: 'conversation 429 RESOURCE_EXHAUSTED: too many', retryAfterMs: 7000 });

  const at = Date.parse('2025-06-01T12:00:00Z');
  const dated = platformErrorFromResponse({
    area: 'conversation',
    status: 429,
    headers: { 'retry-after': new Date(at + 3000).toUTCString() },
    body: {},
    now: at,
  });
  assert.equal(classifySendError(dated).retryAfterMs, 3000);

  // Without Retry-After: throttled, no wait given (the caller picks its own back-off).
  const bare = classifySendError(conversation(429, 'RESOURCE_EXHAUSTED', 'queue full'));
  assert.equal(bare.kind, 'throttled');
  assert.equal('retryAfterMs' in bare, false);

  // Through the real HTTP layer: the header is read from the answer.
  const url = await startStub(t, (_req, res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
    res.end(JSON.stringify({ error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED', details: [] } }));
  });
  const err = await sendError(url);
  assert.ok(err instanceof PlatformRateLimitError, `expected a PlatformRateLimitError, got ${String(err)}`);
  assert.deepEqual(classifySendError(err), {
    kind: 'throttled',
    code: 'RESOURCE_EXHAUSTED',
    message: 'conversation 429 RESOURCE_EXHAUSTED: slow down',
    retryAfterMs: 2000,
  });
});

test('MMS E113 (and E106) is throttled whatever the HTTP status', () => {
  const e113 = mms(429, 'E113', 'throughput exceeded', { 'retry-after': '1' });
  assert.ok(e113 instanceof PlatformRateLimitError, `expected a PlatformRateLimitError, got ${String(e113)}`);
  assert.deepEqual(classifySendError(e113), { kind: 'throttled', code: 'E113', message: 'mms 429 E113: throughput exceeded', retryAfterMs: 1000 });
  // A 200 answer whose body says Failure E113 is the same "slow down".
  const in200 = classifySendError(mms(200, 'E113'));
  assert.equal(in200.kind, 'throttled');
  assert.equal(in200.code, 'E113');
  assert.equal(in200.retryAfterMs, undefined);
  assert.equal(kindOf(mms(429, 'E106')), 'throttled');
});

test('5xx: 500, 502 and 504 may have been accepted (in doubt); 501, 503 and 408 were not', () => {
  for (const status of [500, 502, 504]) {
    const c = classifySendError(conversation(status, 'INTERNAL', 'boom'));
    assert.equal(c.kind, 'in_doubt', String(status));
    assert.equal(c.code, 'INTERNAL');
  }
  for (const status of [501, 503, 408]) assert.equal(kindOf(conversation(status, 'UNAVAILABLE', 'later')), 'not_sent', String(status));
  // MMS E503 arrives as an HTTP 500 (docs/mms-wire.md): in doubt like any 500.
  const e503 = mms(500, 'E503', 'internal error');
  assert.ok(e503 instanceof PlatformUnavailableError, `expected a PlatformUnavailableError, got ${String(e503)}`);
  assert.deepEqual(classifySendError(e503), { kind: 'in_doubt', code: 'E503', message: 'mms 500 E503: internal error' });
  // The error code decides before the status: E503 in a 200 Failure body is in doubt too, not a refusal.
  assert.equal(kindOf(mms(200, 'E503', 'internal error')), 'in_doubt');
});

test('no answer within the timeout after the request was sent: in doubt (TIMEOUT)', async (t) => {
  // The stub reads the whole request and never answers: the platform may well have accepted it.
  const url = await startStub(t, () => undefined);
  const err = await sendError(url, 'conversation', 150);
  assert.ok(err instanceof PlatformUnavailableError, `expected a PlatformUnavailableError, got ${String(err)}`);
  assert.equal(err.httpStatus, undefined);
  const c = classifySendError(err);
  assert.equal(c.kind, 'in_doubt');
  assert.equal(c.code, 'TIMEOUT');
  assert.match(c.message, /no answer within 150 ms/);
});

test('connection reset after the request was read: in doubt; connection refused: not sent', async (t) => {
  const url = await startStub(t, (req) => req.socket.destroy());
  const reset = await sendError(url, 'mms');
  assert.ok(reset instanceof PlatformUnavailableError, `expected a PlatformUnavailableError, got ${String(reset)}`);
  assert.deepEqual([classifySendError(reset).kind, classifySendError(reset).code], ['in_doubt', 'NETWORK_ERROR']);

  // A port nobody listens on: the request never left this machine.
  const port = await closedPort();
  const refused = await sendError(`http://127.0.0.1:${port}/`);
  assert.ok(refused instanceof PlatformUnavailableError, `expected a PlatformUnavailableError, got ${String(refused)}`);
  assert.deepEqual([classifySendError(refused).kind, classifySendError(refused).code], ['not_sent', 'NETWORK_ERROR']);
});

test('an error that is not a PlatformError is in doubt (UNKNOWN), keeping its message', () => {
  assert.deepEqual(classifySendError(new TypeError('socket hang up')), { kind: 'in_doubt', code: 'UNKNOWN', message: 'socket hang up' });
  assert.deepEqual(classifySendError('weird'), { kind: 'in_doubt', code: 'UNKNOWN', message: 'weird' });
});

test('conversation 400 about the recipient alone: recipient rejected', () => {
  const identity = conversation(
    400,
    'INVALID_ARGUMENT',
    "Invalid request: field 'recipient.identified_by.channel_identities[0].identity' must be an E.164 number with a leading +",
    [{ field: 'recipient.identified_by.channel_identities[0].identity', description: 'must be an E.164 number with a leading +' }],
  );
  assert.ok(identity instanceof PlatformValidationError, `expected a PlatformValidationError, got ${String(identity)}`);
  const c: SendErrorClass = classifySendError(identity);
  assert.equal(c.kind, 'recipient_rejected');
  assert.equal(c.code, 'INVALID_ARGUMENT');
  assert.equal(c.message, identity.message);
  assert.equal(kindOf(conversation(400, 'INVALID_ARGUMENT', 'Invalid recipient')), 'recipient_rejected');
  assert.equal(
    kindOf(conversation(400, 'INVALID_ARGUMENT', 'Invalid request', [{ field: 'recipient.contact_id', description: 'is unknown' }])),
    'recipient_rejected',
  );
});

test('conversation 400 about the message or the app (even alongside the recipient): campaign refused', () => {
  const cases: Array<[string, unknown[]]> = [
    ["Invalid request: field 'message.text_message.text' must not be empty", [{ field: 'message.text_message.text', description: 'must not be empty' }]],
    ["Invalid request: field 'message.media_message.url' must be an absolute http or https URL", [{ field: 'message.media_message.url', description: 'x' }]],
    ["Invalid request: field 'app_id' must be a ULID", [{ field: 'app_id', description: 'must be a ULID' }]],
    [
      'Invalid request',
      [
        { field: 'recipient.identified_by.channel_identities[0].identity', description: 'x' },
        { field: 'app_id', description: 'is required' },
      ],
    ],
    ['Invalid request', []],
  ];
  for (const [message, details] of cases) {
    assert.equal(kindOf(conversation(400, 'INVALID_ARGUMENT', message, details)), 'campaign_refused', message + JSON.stringify(details));
  }
});

test('MMS E110 (bad to) and E114 (blocked number) are about the recipient alone, in a 400 or a 200 Failure', () => {
  for (const status of [400, 200]) {
    for (const code of ['E110', 'E114']) {
      const err = mms(status, code, 'bad number');
      assert.ok(err instanceof PlatformValidationError, `expected a PlatformValidationError, got ${String(err)}`);
      assert.deepEqual(classifySendError(err), { kind: 'recipient_rejected', code, message: `mms ${status} ${code}: bad number` });
    }
  }
});

test('campaign-level refusals: unknown app, bad credentials, no access, bad sender, bad content, media fetch failure', () => {
  const cases: Array<[string, PlatformError, new (...a: never[]) => PlatformError]> = [
    ['conversation unknown app / wrong region', conversation(404, 'NOT_FOUND', 'App 01H not found in project p on region EU'), PlatformNotFoundError],
    ['conversation bad token', conversation(401, 'UNAUTHENTICATED', 'bad token'), PlatformAuthError],
    ['conversation key not tied to the project', conversation(403, 'PERMISSION_DENIED', 'UNAUTHORIZED'), PlatformAuthError],
    [
      'OAuth token endpoint refuses the key',
      platformErrorFromResponse({ area: 'auth', status: 401, body: { error: 'invalid_client', error_description: 'bad secret' } }),
      PlatformAuthError,
    ],
    ['MMS E104 bad API key', mms(401, 'E104'), PlatformAuthError],
    ['MMS E105 no API access', mms(403, 'E105'), PlatformAuthError],
    ['MMS E112 IP not allowed', mms(403, 'E112'), PlatformAuthError],
    ['MMS E103 account blocked', mms(403, 'E103'), PlatformValidationError],
    ['MMS E111 bad sender', mms(400, 'E111'), PlatformValidationError],
    ['MMS E100 invalid request', mms(400, 'E100', 'message-subject is required'), PlatformValidationError],
    ['MMS E107 action not allowed', mms(400, 'E107'), PlatformValidationError],
    ['MMS E223 slide count', mms(400, 'E223'), PlatformValidationError],
    ['MMS E226 media URL', mms(400, 'E226'), PlatformValidationError],
    ['MMS E227 media fetch failure', mms(400, 'E227', 'https://cdn.example.com/a.png answered 404'), PlatformValidationError],
    ['MMS E227 in a 200 Failure', mms(200, 'E227'), PlatformValidationError],
  ];
  for (const [what, err, cls] of cases) {
    assert.ok(err instanceof cls, `${what}: ${err.name}`);
    const c = classifySendError(err);
    assert.equal(c.kind, 'campaign_refused', what);
    assert.equal(c.code, err.code, what);
    assert.equal(c.message, err.message, what);
    assert.equal('retryAfterMs' in c, false, what);
  }
  // Answers no class covers are refusals too, never a silent retry.
  assert.equal(kindOf(conversation(409, 'ALREADY_EXISTS', 'conflict')), 'campaign_refused');
  assert.equal(kindOf(platformErrorFromResponse({ area: 'conversation', status: 418, body: 'teapot' })), 'campaign_refused');
});
