// Area A's configuration address (docs/voice-wire.md, "Configuration"): the numbers an account owns, with their
// capability and the application each is assigned to, and each application's callback URLs. Signed requests;
// errors in the voice family ({errorCode, message}).
import type { FastifyRequest } from 'fastify';
import type { SandboxArea } from '../../core/area.js';
import { applicationAuth } from '../../core/auth-application.js';
import { AreaError } from '../../core/errors.js';
import { authOf } from '../../core/request-state.js';
import { voiceConfigStateOf } from './state.js';
import type { VoiceNumberCapability as Capability } from '../../../common/wire/voice.js';

const bad = (message: string) => new AreaError(400, message, { code: 40001 });
type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});

function capabilityOf(v: unknown): Capability {
  if (v === undefined || v === 'voice') return 'voice';
  if (v === 'sms') return 'sms';
  throw bad('capability must be voice or sms');
}

function ownKey(request: FastifyRequest, given: unknown): string {
  const mine = authOf(request).account.appKey;
  if (given !== mine) throw bad('applicationkey must be the key of the application that signs the request');
  return mine;
}

function httpUrl(v: unknown, field: string): string {
  if (typeof v !== 'string') throw bad(`${field} must be an absolute http(s) URL`);
  try {
    const u = new URL(v);
    if (u.protocol === 'http:' || u.protocol === 'https:') return v;
  } catch {
    // falls through to the error
  }
  throw bad(`${field} must be an absolute http(s) URL`);
}

export const voiceConfigArea: SandboxArea = {
  name: 'voiceConfig',
  setup(ctx) {
    const state = voiceConfigStateOf(ctx);
    const guard = [applicationAuth(ctx)];
    const accountOf = (r: FastifyRequest) => authOf(r).account;

    return (app) => {
      app.get('/v1/configuration/numbers', { preValidation: guard }, async (request) => ({
        numbers: state
          .numbersOf(accountOf(request))
          .map((n) => ({ number: n.number, capability: n.capability, ...(n.applicationKey ? { applicationkey: n.applicationKey } : {}) })),
      }));

      app.post('/v1/configuration/numbers', { preValidation: guard }, async (request) => {
        const b = obj(request.body);
        const key = ownKey(request, b.applicationkey);
        const capability = capabilityOf(b.capability);
        if (!Array.isArray(b.numbers) || b.numbers.length === 0 || !b.numbers.every((n) => typeof n === 'string'))
          throw bad('numbers must be a non-empty list of numbers');
        const owned = state.numbersOf(accountOf(request));
        const missing = (b.numbers as string[]).filter((n) => !owned.some((o) => o.number === n && o.capability === capability));
        if (missing.length) throw bad(`not numbers of this account with capability ${capability}: ${missing.join(', ')}`);
        for (const n of b.numbers as string[]) state.assign(accountOf(request), n, key);
        return {};
      });

      app.delete('/v1/configuration/numbers', { preValidation: guard }, async (request) => {
        const b = obj(request.body);
        const key = ownKey(request, b.applicationkey);
        const capability = capabilityOf(b.capability);
        if (typeof b.number !== 'string') throw bad('number is required');
        const n = state.numbersOf(accountOf(request)).find((o) => o.number === b.number && o.capability === capability);
        if (!n || n.applicationKey !== key) throw bad(`${b.number} is not assigned to this application`);
        state.assign(accountOf(request), n.number, undefined);
        return {};
      });

      const callbacksPath = '/v1/configuration/callbacks/applications/:applicationkey';
      const keyOfPath = (request: FastifyRequest) => {
        const key = (request.params as { applicationkey: string }).applicationkey;
        if (key !== authOf(request).account.appKey) throw new AreaError(404, `Application ${key} not found`, { code: 40400 });
        return key;
      };
      app.get(callbacksPath, { preValidation: guard }, async (request) => {
        const urls = state.callbacks.get(keyOfPath(request));
        return { url: urls ?? {} };
      });
      app.post(callbacksPath, { preValidation: guard }, async (request) => {
        const key = keyOfPath(request);
        const url = obj(obj(request.body).url);
        const primary = httpUrl(url.primary, 'url.primary');
        const fallback = url.fallback === undefined ? undefined : httpUrl(url.fallback, 'url.fallback');
        state.callbacks.set(key, { primary, ...(fallback ? { fallback } : {}) });
        return {};
      });
    };
  },
};
