// Shared by the persistence tests: calls over HTTP to a listening sandbox (as relayflow makes them), a
// receiver for the webhooks and postbacks the sandbox sends, temporary data directories, and polling.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { signApplicationRequest } from '../../common/signing.js';
import { defaultSandboxAccount, type Sandbox } from '../../sandbox/index.js';
import { pollUntil } from './deadline.js';
import { freshStoreSnapshot } from './store-snapshot.js';
import { Receiver, type Received } from './stub-server.js';

export const account = defaultSandboxAccount();
// Bodies are whatever the sandbox answered; each test narrows what it reads.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;
export interface Answer {
  status: number;
  body: Body;
}

export { sleep } from './deadline.js';

/** Polls until `cond` holds; fails the test naming `what` instead of hanging. */
export const eventually = (cond: () => Promise<boolean> | boolean, what: string, ms = 30_000): Promise<unknown> => pollUntil(cond, what, ms, 50);

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A new data directory's embedded PostgreSQL made before the sandbox's first start there (createSandbox keeps its
 * state under <dataDir>/sandbox): loaded from the shared fresh copy (store-snapshot.ts) in about 1.3 s of CPU, where
 * that start's initdb takes 7.5 s. The sandbox finds an empty database, as on a new directory.
 */
export async function seedDataDir(dataDir: string): Promise<void> {
  const db = await PGlite.create({ dataDir: join(dataDir, 'sandbox'), loadDataDir: await freshStoreSnapshot() });
  await db.close();
}

/** Every persisted area's state as JSON, by name: what the store holds after a flush. */
export function savedStates(sb: Sandbox): Record<string, string> {
  return Object.fromEntries(sb.context.persistedAreas.map((a) => [a.name, JSON.stringify(a.persist())]));
}

async function send(url: string, method: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const typed = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  const res = await fetch(url, {
    method,
    headers: { ...(body !== undefined && !typed ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}

/** A bearer token from the sandbox's token endpoint. */
export async function bearerToken(base: string): Promise<string> {
  const basic = Buffer.from(`${account.keyId}:${account.keySecret}`).toString('base64');
  const res = await fetch(`${base}/auth/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  assert.equal(res.status, 200, await res.clone().text());
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Calls to one listening sandbox: OAuth areas with `token`, application-signed areas, MMS, control routes. */
export function client(base: string, token: string) {
  const CONTENT_TYPE = 'application/json; charset=UTF-8';
  return {
    oauth: (method: string, path: string, body?: unknown) => send(`${base}${path}`, method, body, { authorization: `Bearer ${token}` }),
    signed: (method: string, path: string, body?: unknown) => {
      const payload = body === undefined ? '' : JSON.stringify(body);
      const headers = signApplicationRequest({ appKey: account.appKey, appSecret: account.appSecret, method, path, contentType: CONTENT_TYPE, body: payload });
      return send(`${base}${path}`, method, payload || undefined, headers);
    },
    mms: (body: unknown) => send(`${base}/mms/`, 'POST', body, { 'x-api-key': account.mmsApiKey, 'content-type': 'application/json; charset=utf-8' }),
    control: (method: string, path: string, body?: unknown) => send(`${base}/_sandbox${path}`, method, body),
  };
}

/** Keeps every JSON body POSTed to it, by path. */
export class BodyReceiver extends Receiver<{ path: string; body: Body }> {
  protected override record(r: Received): { path: string; body: Body } {
    return { path: r.path, body: JSON.parse(r.raw) };
  }

  at(path: string): Body[] {
    return this.received.filter((r) => r.path === path).map((r) => r.body);
  }
}
