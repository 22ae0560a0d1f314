// Shared by the MMS sandbox tests (docs/mms-wire.md): one listening sandbox per describe block (media
// URLs point at its own /_sandbox/mms/media routes), a postback receiver, calls to the MMS endpoint
// with the account's x-api-key, the control routes, and bodies for the three actions.
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { after, before, beforeEach } from 'node:test';
import { createSandbox, defaultSandboxAccount, type Sandbox } from '../../sandbox/index.js';
import type { AcceptedMms } from '../../sandbox/areas/mms/state.js';
import { pollUntil } from './deadline.js';
import { Receiver, type Received } from './stub-server.js';

export const API_KEY = defaultSandboxAccount().mmsApiKey;

/** The MMS answer body: Success with an id, or Failure with the E-code. */
export interface MmsAnswer {
  status: 'Success' | 'Failure';
  'tracking-id'?: string;
  'mms-id'?: string;
  'error-code'?: string;
  'error-info'?: string;
}

export interface Answer<T = MmsAnswer> {
  status: number;
  body: T;
  headers: OutgoingHttpHeaders;
}

export interface MmsStats {
  accepted: number;
  duplicateRecipients: number;
  duplicateSamples: string[];
  refusedE113: number;
  requests: number;
  saved: number;
  distinctRecipients: number;
}

export interface Postback {
  origin: string;
  code: string;
  status: string;
  'tracking-id': string;
  to: string;
  'operator-id'?: number;
  timestamp: string;
  'client-reference'?: string;
  'status-details'?: string;
}

export interface CallbackRecord {
  area: string;
  url: string;
  body: Postback;
  outcome: string;
  attempts: { status?: number; error?: string }[];
}

export { sleep } from './deadline.js';

/** Polls `cond` every 5 ms until it holds; fails after `ms`. */
export const waitFor = (cond: () => boolean, what: string, ms = 3000): Promise<unknown> => pollUntil(cond, what, ms, 5);

/** Polls the async `cond` every 10 ms until it holds; fails after `ms`. */
export const eventually = (cond: () => Promise<boolean>, what: string, ms = 3000): Promise<unknown> => pollUntil(cond, what, ms, 10);

interface Taken {
  body: Postback;
  headers: IncomingHttpHeaders;
  at: number;
}

/** Records every postback; answers 500 while `failures[code]` is above zero (decremented per answer), else 200. */
class PostbackReceiver extends Receiver<Taken> {
  failures: Record<string, number> = {};

  constructor() {
    super('/callbacks/mms/token');
  }

  protected override record(r: Received): Taken {
    return { body: JSON.parse(r.raw) as Postback, headers: r.headers, at: r.at };
  }

  protected override reply(res: ServerResponse, kept: Taken): void {
    const left = this.failures[kept.body.code] ?? 0;
    if (left > 0) this.failures[kept.body.code] = left - 1;
    res.writeHead(left > 0 ? 500 : 200).end();
  }

  override async reset(): Promise<void> {
    this.received = [];
    this.failures = {};
  }

  /** The postbacks of one message, in arrival order. */
  of(trackingId: string): Postback[] {
    return this.received.filter((r) => r.body['tracking-id'] === trackingId).map((r) => r.body);
  }

  codes(trackingId: string): string[] {
    return this.of(trackingId).map((p) => p.code);
  }
}

export interface SendOptions {
  headers?: Record<string, string>;
  /** Path and query of the call; default `/mms/`. */
  url?: string;
}

/** One sandbox (listening, for media URLs) and one receiver per describe block; reset before each test. */
export function mmsSuite() {
  const receiver = new PostbackReceiver();
  let sb: Sandbox | undefined;
  const sandbox = () => {
    assert.ok(sb, 'sandbox not started');
    return sb;
  };

  /** POSTs to the MMS endpoint with the account's key; a string body is sent as is. */
  const send = async (body: unknown, opts: SendOptions = {}): Promise<Answer> => {
    const res = await sandbox().app.inject({
      method: 'POST',
      url: opts.url ?? '/mms/',
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-api-key': API_KEY, ...opts.headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.json<MmsAnswer>(), headers: res.headers };
  };

  /** A control route under /_sandbox (`path` starts with `/`). */
  const control = async <T = Record<string, unknown>>(method: 'GET' | 'PUT' | 'POST', path: string, payload?: unknown): Promise<Answer<T>> => {
    const res = await sandbox().app.inject({
      method,
      url: `/_sandbox${path}`,
      ...(payload !== undefined ? { headers: { 'content-type': 'application/json' }, payload: JSON.stringify(payload) } : {}),
    });
    return { status: res.statusCode, body: res.json<T>(), headers: res.headers };
  };

  const stats = async () => (await control<MmsStats>('GET', '/mms/stats')).body;
  const recipients = async () => (await control<{ counts: Record<string, number> }>('GET', '/mms/recipients')).body.counts;
  const messages = async (clientReference: string) =>
    (await control<{ messages: AcceptedMms[] }>('GET', `/mms/messages?clientReference=${encodeURIComponent(clientReference)}`)).body.messages;
  const account = async (settings: Record<string, unknown>) => {
    const res = await control('PUT', '/mms/account', settings);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const delivery = async (settings: Record<string, unknown>) => {
    const res = await control('PUT', '/mms/delivery', settings);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  /** An absolute URL of the sandbox's own media routes, e.g. media('media/a.png'). */
  const callbacks = async () => (await control<{ callbacks: CallbackRecord[] }>('GET', '/callbacks?area=mms')).body.callbacks;
  const media = (path: string) => `${sandbox().url}/_sandbox/mms/${path}`;

  /**
   * Lets the postbacks in flight finish before a reset or close. The dispatcher starts its retry wait even
   * for an attempt that reset/close aborted (sandbox/core/callbacks.ts), and the MMS default gap is five
   * minutes: the test process would stay alive that long. With no retries left nothing can wait.
   */
  const settle = async () => {
    await control('PUT', '/mms/account', { postbackRetries: 0 });
    await eventually(async () => (await callbacks()).every((c) => c.outcome !== 'pending'), 'postbacks in flight to finish');
  };

  before(async () => {
    sb = await createSandbox();
    await sb.listen();
    await receiver.start();
  });
  after(async () => {
    if (sb) await settle();
    await sb?.close();
    await receiver.stop();
  });
  beforeEach(async () => {
    await settle();
    assert.equal((await control('POST', '/reset')).status, 200);
    await receiver.reset();
  });

  return { receiver, sandbox, send, control, stats, recipients, messages, account, delivery, callbacks, media };
}

/** Asserts a refusal: the HTTP status, `status: Failure` and the E-code, with some `error-info`. */
export function assertRefused(res: Answer, status: number, code: string, what = ''): void {
  assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.status, 'Failure', what);
  assert.equal(res.body['error-code'], code, `${what}: ${JSON.stringify(res.body)}`);
  assert.ok(res.body['error-info'], `${what}: error-info is empty`);
  assert.equal(res.body['tracking-id'], undefined, what);
}

/** Asserts a Success answer; its tracking-id (sends) or mms-id (savemms). */
export function assertSuccess(res: Answer, what = ''): string {
  assert.equal(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.status, 'Success', what);
  const id = res.body['tracking-id'] ?? res.body['mms-id'];
  assert.ok(id, `${what}: no id in ${JSON.stringify(res.body)}`);
  return id;
}

const SUBJECT = 'Summer sale';

/** A valid sendmms: one text slide, fallback SMS on. */
export const sendBody = (to = '15551230001', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  action: 'sendmms',
  'service-id': 'svc-1',
  to,
  'message-subject': SUBJECT,
  'fallback-sms-text': 'See the offer',
  slide: [{ 'message-text': 'Hello' }],
  ...extra,
});

/** A valid savemms: no `to`. */
export const saveBody = (extra: Record<string, unknown> = {}): Record<string, unknown> => {
  const { to: _to, ...rest } = sendBody();
  return { ...rest, action: 'savemms', ...extra };
};

export const sendSavedBody = (mmsId: string, to = '15551230001', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  action: 'sendsavedmms',
  'service-id': 'svc-1',
  'mms-id': mmsId,
  to,
  ...extra,
});
