// Processes in several states under one prefix, for the list of processes (test/api/process-list.test.ts) and the
// audit page (test/e2e/ui-page.test.ts): a subproject READY, one FAILED whose reason quotes a phone number (the
// platform's refusal), and a campaign PAUSED by a person (waiting on one). `q` finds exactly these three.
import assert from 'node:assert/strict';
import { createApp, numbers } from './campaigns.js';
import { uniqueName, type Harness } from './harness.js';

export interface ListFixture {
  /** The text filter that finds the three: `<projectId>:<prefix>`, a business key's start under every kind. */
  q: string;
  ready: string;
  failed: string;
  paused: string;
  pauseReason: string;
}

const enc = encodeURIComponent;

export async function startListFixture(h: Harness): Promise<ListFixture> {
  const prefix = uniqueName('listed');
  const projectId = h.config.platform.credentials.projectId;
  const post = async (url: string, payload: Record<string, unknown>) => {
    const res = await h.api({ method: 'POST', url, payload });
    assert.ok(res.statusCode === 202 || res.statusCode === 200, `${url}: ${res.body}`);
    return res.json().processId as string;
  };
  const ready = await post('/v1/subprojects', { displayName: `${prefix}-ok` });
  await h.waitForState(ready, 'READY', 30_000);
  const fault = await fetch(`${h.sandbox.url}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      area: 'subprojects',
      method: 'POST',
      status: 400,
      count: 1,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT', message: 'displayName rejected by policy; call +46700000977', details: [] } },
    }),
  });
  assert.ok(fault.ok, await fault.text());
  const failed = await post('/v1/subprojects', { displayName: `${prefix}-bad` });
  await h.waitForState(failed, 'FAILED', 30_000);
  const appId = await createApp(h, 5);
  const paused = await post('/v1/campaigns/conversation', {
    key: `${prefix}-campaign`,
    appId,
    region: 'eu',
    message: { text: 'Hi' },
    recipients: numbers(100, 40_000),
  });
  await h.waitForState(paused, 'SENDING', 30_000);
  const pauseReason = `held for ${prefix} by support`;
  const res = await h.api({ method: 'POST', url: `/v1/campaigns/${enc(paused)}/pause`, payload: { reason: pauseReason } });
  assert.equal(res.statusCode, 200, res.body);
  return { q: `${projectId}:${prefix}`, ready, failed, paused, pauseReason };
}

/** Polls `read` until `ok` (visibility is eventually consistent), failing with the last value after 15 s. */
export async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    last = await read();
    if (ok(last)) return last;
  }
  assert.fail(`${what}: ${JSON.stringify(last)}`);
}
