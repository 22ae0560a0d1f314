// What the calling address refuses (400, errorCode 40001, the message naming the field and the rule): callout
// bodies, call updates, participant commands; and what makes an application's SVAML answer unusable beyond the
// legality table of common/wire/voice-svaml.ts (a runMenu without menus, a connectConf without a conference).
import { AreaError } from '../../core/errors.js';
import { legInstructionViolations, svamlViolations, type Svaml } from '../../../common/wire/voice-svaml.js';
import { PARTICIPANT_COMMANDS, type ParticipantCommand } from '../../../common/wire/voice.js';
import { menuProblems } from './menus.js';
import type { CallKind, CalloutOptions } from './state.js';

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const bad = (message: string) => new AreaError(400, message, { code: 40001 });
export const E164 = /^\+[1-9]\d{6,14}$/;
const DTMF = /^[0-9#w]*$/;
const CONFERENCE_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

export interface CalloutInput {
  kind: Exclude<CallKind, 'incoming'>;
  from: string;
  to: { type: 'number' | 'username'; endpoint: string };
  domain: 'pstn' | 'mxp';
  custom: string;
  options: CalloutOptions;
}

const METHODS = { ttsCallout: 'tts', conferenceCallout: 'conference', customCallout: 'custom' } as const;

function optString(o: Obj, key: string, field: string): string | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw bad(`${field}.${key} must be a string`);
  return v;
}

function optBool(o: Obj, key: string, field: string): boolean | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw bad(`${field}.${key} must be a boolean`);
  return v;
}

function destinationOf(v: unknown, field: string): CalloutInput['to'] {
  if (!isObj(v)) throw bad(`${field}.destination is required: {type: number, endpoint}`);
  const type = v.type ?? 'number';
  if (type !== 'number' && type !== 'username') throw bad(`${field}.destination.type must be number or username`);
  const endpoint = v.endpoint ?? v.number;
  if (type === 'number' && (typeof endpoint !== 'string' || !E164.test(endpoint))) throw bad(`${field}.destination.endpoint must be E.164 with +`);
  if (typeof endpoint !== 'string' || endpoint === '') throw bad(`${field}.destination.endpoint is required`);
  return { type, endpoint };
}

/** A custom callout's ice/ace/pie: a callback URL, or inline SVAML legal for that event. */
function eventTarget(o: Obj, event: 'ice' | 'ace' | 'pie', field: string): CalloutOptions['eventTargets'][typeof event] {
  const v = o[event];
  if (v === undefined || v === '') return undefined;
  const rule = `${field}.${event} must be an absolute http(s) URL or SVAML legal for ${event.toUpperCase()}`;
  if (typeof v !== 'string') throw bad(rule);
  if (/^https?:\/\//i.test(v)) {
    try {
      return { url: new URL(v).toString() };
    } catch {
      throw bad(rule);
    }
  }
  let svaml: unknown;
  try {
    svaml = JSON.parse(v);
  } catch {
    throw bad(rule);
  }
  const problems = answerProblems(event, svaml);
  if (problems.length) throw bad(`${rule}: ${problems.join('; ')}`);
  return { svaml: svaml as Svaml };
}

export function parseCallout(body: unknown): CalloutInput {
  if (!isObj(body)) throw bad('the body must be a JSON object {method, <method>: {...}}');
  const method = body.method;
  if (typeof method !== 'string' || !(method in METHODS)) throw bad('method must be ttsCallout, conferenceCallout or customCallout');
  const kind = METHODS[method as keyof typeof METHODS];
  const o = body[method];
  if (!isObj(o)) throw bad(`${method} is required: an object`);
  const cli = optString(o, 'cli', method);
  if (cli !== undefined && !E164.test(cli)) throw bad(`${method}.cli must be E.164 with +`);
  const to = destinationOf(o.destination, method);
  const domain = o.domain ?? 'pstn';
  if (domain !== 'pstn' && domain !== 'mxp') throw bad(`${method}.domain must be pstn or mxp`);
  const custom = optString(o, 'custom', method) ?? '';
  if (custom.length > 1024) throw bad(`${method}.custom must be at most 1024 characters`);
  const dtmf = optString(o, 'dtmf', method);
  if (dtmf !== undefined && !DTMF.test(dtmf)) throw bad(`${method}.dtmf must match [0-9#w]*`);
  const locale = optString(o, 'locale', method);
  let amd = false;
  if (o.amd !== undefined) {
    if (kind === 'custom' || !isObj(o.amd) || typeof o.amd.enabled !== 'boolean')
      throw bad(`${method}.amd must be {enabled: boolean}${kind === 'custom' ? ' on ttsCallout or conferenceCallout' : ''}`);
    amd = o.amd.enabled;
  }
  let maxDurationS: number | undefined;
  if (o.maxDuration !== undefined) {
    if (kind === 'tts' || typeof o.maxDuration !== 'number' || !Number.isInteger(o.maxDuration) || o.maxDuration < 0 || o.maxDuration > 14_400)
      throw bad(`${method}.maxDuration must be an integer from 0 to 14400 (seconds)`);
    if (o.maxDuration > 0) maxDurationS = o.maxDuration;
  }
  const options: CalloutOptions = {
    enableAce: kind === 'custom' ? true : (optBool(o, 'enableAce', method) ?? false),
    enableDice: kind === 'custom' ? true : (optBool(o, 'enableDice', method) ?? false),
    enablePie: kind === 'custom' ? true : (optBool(o, 'enablePie', method) ?? false),
    amd,
    eventTargets: {},
    ...(locale !== undefined ? { locale } : {}),
    ...(dtmf ? { dtmf } : {}),
    ...(maxDurationS !== undefined ? { maxDurationS } : {}),
  };
  if (kind === 'tts') {
    const text = optString(o, 'text', method) ?? optString(o, 'prompts', method);
    if (!text) throw bad('ttsCallout.text or ttsCallout.prompts is required');
    options.text = text;
  } else if (kind === 'conference') {
    const id = o.conferenceId;
    if (typeof id !== 'string' || !CONFERENCE_ID.test(id)) throw bad('conferenceCallout.conferenceId is required: 1 to 64 of A-Z a-z 0-9 _ . : -');
    options.conferenceId = id;
    const greeting = optString(o, 'greeting', method);
    if (greeting) options.greeting = greeting;
    optString(o, 'mohClass', method);
  } else {
    for (const e of ['ice', 'ace', 'pie'] as const) {
      const t = eventTarget(o, e, method);
      if (t) options.eventTargets[e] = t;
    }
  }
  return { kind, from: cli ?? 'private', to, domain: domain as 'pstn' | 'mxp', custom, options };
}

/** Why an application's answer to `event` cannot be carried out (empty: it can). */
export function answerProblems(event: 'ice' | 'ace' | 'pie', svaml: unknown): string[] {
  const problems = svamlViolations(event, svaml);
  if (problems.length) return problems;
  const action = (svaml as Svaml).action as Obj;
  if (action.name === 'runMenu') return menuProblems(action);
  if (action.name === 'connectConf' && (typeof action.conferenceId !== 'string' || !CONFERENCE_ID.test(action.conferenceId)))
    return ['action.conferenceId: required for connectConf'];
  if (action.name === 'connectPstn' && action.number !== undefined && (typeof action.number !== 'string' || !E164.test(action.number)))
    return ['action.number: must be E.164 with +'];
  if (action.name === 'connectPstn' && action.cli !== undefined && (typeof action.cli !== 'string' || !E164.test(action.cli)))
    return ['action.cli: must be E.164 with +'];
  return [];
}

/** PATCH /calls/id/{callId}: instructions the platform takes outside ICE, and hangup, continue or connectConf. */
export function parseCallUpdate(body: unknown): Svaml {
  if (!isObj(body)) throw bad('the body must be SVAML {instructions?, action}');
  const action = body.action;
  if (!isObj(action) || !['hangup', 'continue', 'connectConf'].includes(action.name as string))
    throw bad('action.name must be hangup, continue or connectConf');
  const problems = answerProblems('ace', body);
  if (problems.length) throw bad(problems.join('; '));
  return body as unknown as Svaml;
}

export function parseLegUpdate(leg: string, body: unknown): Svaml['instructions'] & unknown[] {
  if (leg !== 'caller' && leg !== 'callee' && leg !== 'both') throw bad('callLeg must be caller, callee or both');
  const instructions = isObj(body) ? body.instructions : undefined;
  const problems = legInstructionViolations(instructions);
  if (problems.length) throw bad(problems.join('; '));
  return instructions as NonNullable<Svaml['instructions']>;
}

export function parseParticipantCommand(body: unknown): { command: ParticipantCommand; moh?: string } {
  const b = isObj(body) ? body : {};
  if (!PARTICIPANT_COMMANDS.includes(b.command as ParticipantCommand)) throw bad('command must be mute, unmute, onhold or resume');
  if (b.moh !== undefined && typeof b.moh !== 'string') throw bad('moh must be a string');
  return { command: b.command as ParticipantCommand, ...(typeof b.moh === 'string' ? { moh: b.moh } : {}) };
}
