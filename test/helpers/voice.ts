// Voice test helpers: point the sandbox's application at relayflow's callback intake, drive the simulated
// switch (callee behaviour, incoming calls, keys pressed) and read what it did.
import assert from 'node:assert/strict';
import { VOICE_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { createPlatformClients } from '../../platform/index.js';
import { pollGaps } from './deadline.js';
import type { Harness } from './harness.js';

/** The voice numbers the sandbox gives the first account (sandbox/areas/voice-config/state.ts). */
export const OWN_NUMBERS = ['+4685000101', '+4685000102', '+4685000103'] as const;

let counter = 0;
/** A fresh callee number per call, with a suffix tests can give a behaviour. */
export function phone(suffix = ''): string {
  counter += 1;
  const head = `+4670${String(process.pid % 1000).padStart(3, '0')}${String(counter).padStart(3, '0')}`;
  return `${head.slice(0, 13 - suffix.length)}${suffix}`;
}

export const voiceClient = (h: Harness) => createPlatformClients(h.config.platform, {}).voice;

/** The application's callback URL -> the API's voice intake (what an operator sets once per application). */
export async function wireVoice(h: Harness): Promise<void> {
  await voiceClient(h).setCallbackUrls({ primary: `${h.apiUrl}${VOICE_CALLBACK_PATH}` });
}

const control = (h: Harness, method: string, path: string, body?: unknown) => sandboxControl(h, method, `/_sandbox/voice${path}`, body);

/** A sandbox control request (`path` from the sandbox's root); throws unless it succeeded; the answer's JSON. */
export async function sandboxControl(h: Harness, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${h.sandbox.url}${path}`, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  assert.ok(res.ok, `sandbox ${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export type CalleeRule = { suffix: string; outcome: 'answer' | 'busy' | 'noanswer' | 'failed' | 'machine'; answerAfterMs?: number; hangupAfterMs?: number };
export const setCallees = (h: Harness, rules: CalleeRule[]) => control(h, 'PUT', '/callees', { rules });
export const voiceSettings = (h: Harness, s: { callbackTimeoutMs?: number; noAnswerMs?: number; sayMs?: number }) => control(h, 'PUT', '/settings', s);
export const incomingCall = async (h: Harness, from: string, to: string) => (await control(h, 'POST', '/incoming', { from, to })) as { callId: string };
/** A call from an in-app user of the harness's application, to another user (app to app) or to a number (app to phone). */
export const appCall = async (h: Harness, user: string, to: { type: 'username' | 'number'; endpoint: string }) =>
  (await control(h, 'POST', '/app-calls', { user, to, applicationKey: h.config.platform.credentials.appKey })) as { callId: string };
export const pressKeys = (h: Harness, callId: string, digits: string) => control(h, 'POST', `/calls/${encodeURIComponent(callId)}/dtmf`, { digits });
export const hangUp = (h: Harness, callId: string) => control(h, 'POST', `/calls/${encodeURIComponent(callId)}/hangup`);

interface SandboxCallback {
  event: string;
  answer?: { action?: { name?: string }; instructions?: Array<{ name: string; text?: string }> };
  fallback: boolean;
  fallbackReason?: string;
  answeredInMs?: number;
}
export interface SandboxCall {
  callId: string;
  status: string;
  result?: string;
  reason?: string;
  connectedTo?: string;
  conferenceId?: string;
  played: Array<string | { text?: string }>;
  callbacks: SandboxCallback[];
  menu?: unknown;
}
export const sandboxCall = async (h: Harness, callId: string) => (await control(h, 'GET', `/calls/${encodeURIComponent(callId)}`)) as SandboxCall;
export const sandboxConferences = async (h: Harness) =>
  (await control(h, 'GET', '/conferences')) as Array<{
    conferenceId: string;
    region: string;
    participants: Array<{ callId: string; muted: boolean; onhold: boolean }>;
  }>;

/** Text the sandbox says it played on a call. */
export const playedText = (c: SandboxCall) => c.played.map((p) => (typeof p === 'string' ? p : (p.text ?? JSON.stringify(p)))).join(' | ');

/** Polls until `check` returns a value (not undefined), or fails after timeoutMs saying what was last seen. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const pause = pollGaps();
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await pause();
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
}

export interface CalloutView {
  processId: string;
  state: string;
  history: Array<{ state: string; reason?: string }>;
  details: {
    legs: Array<{
      destination: string;
      outcome?: string;
      attempts: Array<{
        attempt: number;
        callId?: string;
        state: string;
        result?: string;
        reason?: string;
        outcome?: string;
        answers: Array<{ event: string; action: string; by: string; input?: string }>;
      }>;
    }>;
    fallbacks: number;
    recordings?: Array<{ type: string; callId: string; leg?: number; attempt?: number; conferenceId?: string; destination?: string }>;
  };
}

export async function callout(h: Harness, processId: string): Promise<CalloutView> {
  const res = await h.api({ method: 'GET', url: `/v1/voice/callouts/${encodeURIComponent(processId)}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** What an incoming call to `number` does (PUT /v1/voice/incoming-rules/{number}); throws unless the API took it. */
export async function putIncomingRule(h: Harness, number: string, script: unknown): Promise<void> {
  const res = await h.api({ method: 'PUT', url: `/v1/voice/incoming-rules/${encodeURIComponent(number)}`, payload: { script } });
  assert.equal(res.statusCode, 200, res.body);
}

export async function startCallout(h: Harness, kind: 'tts' | 'conference' | 'custom', body: Record<string, unknown>): Promise<string> {
  const res = await h.api({ method: 'POST', url: `/v1/voice/callouts/${kind}`, payload: body });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().processId;
}
