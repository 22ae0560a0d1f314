// Test controls under /_sandbox/voice (no authentication, like the core's /_sandbox routes): what called
// numbers do, the switch's timings, calls from the phone network, keys pressed and hang-ups by the other party,
// and the records tests read (calls with every callback and what was played, conferences).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SandboxContext } from '../../core/context.js';
import { AreaError } from '../../core/errors.js';
import type { VoiceConfigState } from '../voice-config/state.js';
import { pressKeys } from './actions.js';
import type { CallEngine } from './calls.js';
import type { CalleeRule, VoiceSettings } from './state.js';
import { VOICE_REGIONS, type VoiceRegion } from '../../../common/wire/voice.js';
import { E164, isObj } from './validate.js';
import { callRecord, callSummary } from './views.js';

type Obj = Record<string, unknown>;
const bad = (message: string) => new AreaError(400, message);
/** An in-app user's identity (the platform leaves the SDK's user IDs open; the sandbox takes any without spaces). */
const IN_APP_USER = /^\S{1,255}$/;
const OUTCOMES: readonly CalleeRule['outcome'][] = ['answer', 'busy', 'noanswer', 'failed', 'machine'];
const SETTING_LIMITS: Record<keyof VoiceSettings, [number, number]> = { callbackTimeoutMs: [1, 60_000], noAnswerMs: [0, 600_000], sayMs: [0, 60_000] };

function ms(v: unknown, field: string, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw bad(`${field} must be an integer from 0 to ${max} (ms)`);
  return v;
}

function parseRules(body: unknown): CalleeRule[] {
  const rules = isObj(body) ? body.rules : undefined;
  if (!Array.isArray(rules)) throw bad('rules must be a list of {suffix, outcome, answerAfterMs?, hangupAfterMs?}');
  return rules.map((r: unknown, i): CalleeRule => {
    if (!isObj(r) || typeof r.suffix !== 'string' || !/^\+?[0-9]*$/.test(r.suffix)) throw bad(`rules[${i}].suffix must be a string of digits`);
    if (!OUTCOMES.includes(r.outcome as CalleeRule['outcome'])) throw bad(`rules[${i}].outcome must be one of ${OUTCOMES.join(', ')}`);
    const answerAfterMs = ms(r.answerAfterMs, `rules[${i}].answerAfterMs`, 600_000);
    const hangupAfterMs = ms(r.hangupAfterMs, `rules[${i}].hangupAfterMs`, 3_600_000);
    return {
      suffix: r.suffix,
      outcome: r.outcome as CalleeRule['outcome'],
      ...(answerAfterMs !== undefined ? { answerAfterMs } : {}),
      ...(hangupAfterMs !== undefined ? { hangupAfterMs } : {}),
    };
  });
}

function parseSettings(body: unknown): Partial<VoiceSettings> {
  const b: Obj = isObj(body) ? body : {};
  const out: Partial<VoiceSettings> = {};
  for (const key of Object.keys(b)) {
    if (!(key in SETTING_LIMITS)) throw bad(`${key} is not a setting (callbackTimeoutMs, noAnswerMs, sayMs)`);
    const [min, max] = SETTING_LIMITS[key as keyof VoiceSettings];
    const v = b[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(`${key} must be an integer from ${min} to ${max} (ms)`);
    out[key as keyof VoiceSettings] = v;
  }
  return out;
}

export function voiceControlRoutes(app: FastifyInstance, ctx: SandboxContext, engine: CallEngine, config: VoiceConfigState): void {
  const { state } = engine;
  const callOf = (r: FastifyRequest) => {
    const { callId } = r.params as { callId: string };
    const call = state.calls.get(callId);
    if (!call) throw new AreaError(404, `Call ${callId} not found`);
    return call;
  };

  app.get('/callees', async () => ({ rules: state.rules }));
  app.put('/callees', async (request) => {
    state.rules = parseRules(request.body);
    return { rules: state.rules };
  });

  app.get('/settings', async () => state.settings);
  app.put('/settings', async (request) => {
    Object.assign(state.settings, parseSettings(request.body));
    return state.settings;
  });

  app.post('/incoming', async (request) => {
    const b: Obj = isObj(request.body) ? request.body : {};
    if (typeof b.from !== 'string' || !E164.test(b.from)) throw bad('from must be E.164 with +');
    const owner = typeof b.to === 'string' ? config.ownerOf(b.to) : undefined;
    const account = owner && ctx.accounts.byApplicationKey(owner.applicationKey);
    if (!account) throw bad('to must be a voice number of an account, assigned to an application (voice-config numbers)');
    const region = b.region ?? 'global';
    if (!VOICE_REGIONS.includes(region as VoiceRegion)) throw bad(`region must be one of ${VOICE_REGIONS.join(', ')}`);
    const voiceBase = `${request.protocol}://${request.host}/voice`;
    const call = engine.startIncoming(b.from, b.to as string, account, region as VoiceRegion, voiceBase);
    return { callId: call.callId };
  });

  // A call from one of the application's in-app users: to another user (app to app) or to a phone number.
  app.post('/app-calls', async (request) => {
    const b: Obj = isObj(request.body) ? request.body : {};
    if (typeof b.user !== 'string' || !IN_APP_USER.test(b.user)) throw bad('user must be 1 to 255 characters without spaces (the caller: an in-app user)');
    const to: Obj = isObj(b.to) ? b.to : {};
    if (to.type === 'number' ? typeof to.endpoint !== 'string' || !E164.test(to.endpoint) : to.type !== 'username')
      throw bad('to must be {type: number, endpoint: E.164 with +} or {type: username, endpoint: an in-app user}');
    if (typeof to.endpoint !== 'string' || !IN_APP_USER.test(to.endpoint)) throw bad('to.endpoint must be 1 to 255 characters without spaces');
    if (b.cli !== undefined && (typeof b.cli !== 'string' || !E164.test(b.cli))) throw bad('cli must be E.164 with +');
    const account = typeof b.applicationKey === 'string' ? ctx.accounts.byApplicationKey(b.applicationKey) : undefined;
    if (!account) throw bad("applicationKey must be an account's application (the one the caller's app signs in to)");
    const region = b.region ?? 'global';
    if (!VOICE_REGIONS.includes(region as VoiceRegion)) throw bad(`region must be one of ${VOICE_REGIONS.join(', ')}`);
    const voiceBase = `${request.protocol}://${request.host}/voice`;
    const destination = { type: to.type as 'number' | 'username', endpoint: to.endpoint };
    const call = engine.startAppCall(b.user, destination, b.cli as string | undefined, account, region as VoiceRegion, voiceBase);
    return { callId: call.callId };
  });

  app.post('/calls/:callId/dtmf', async (request) => {
    const call = callOf(request);
    const digits = isObj(request.body) ? request.body.digits : undefined;
    if (typeof digits !== 'string' || !/^[0-9*#]{1,32}$/.test(digits)) throw bad('digits must be 1 to 32 of 0-9 * #');
    if (call.status !== 'ONGOING' || !call.menu || call.phase !== 'menu') throw new AreaError(409, `Call ${call.callId} is not in a menu (${call.phase})`);
    return { callId: call.callId, ...pressKeys(engine, call, digits) };
  });

  app.post('/calls/:callId/hangup', async (request) => {
    const call = callOf(request);
    if (call.status !== 'ONGOING') throw new AreaError(409, `Call ${call.callId} has already ended`);
    engine.partyHangsUp(call);
    return callSummary(call);
  });

  app.get('/calls', async () => [...state.calls.values()].map(callSummary));
  app.get('/calls/:callId', async (request) => callRecord(callOf(request)));
  app.get('/conferences', async () => engine.conferences.controlView());
}
