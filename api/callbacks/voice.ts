// The platform's voice callbacks (ICE, ACE, PIE, DiCE, Notify), signed with the application secret, through the intake
// pipeline (intake.ts): the signature is checked over the raw body before anything is read. An incoming call's ICE, ACE
// and PIE, and the ACE of a callout whose token carries its plan, are answered from the plan where the callback lands
// (voice-plan.ts: the rule or the token's plan, the call's earlier events from the store, the answer written to the
// store before it goes out, and relayed to the call's process in batches after); the rest (custom callouts, and any
// call when the store is away) are answered by the call's process (voice-answer.ts: an update under a deadline, the
// spec's fallback past it), which first gets what this instance answered for the call and has not relayed yet. The
// event ID is the event, the call and a hash of the raw body (the platform gives none; docs/voice-wire.md): a repeat
// at any instance gets the answer it was given, found with the call in the store or by Temporal under the update's ID.
// A DiCE of a call answered from its plan is written to the store and relayed at once; any other DiCE becomes a
// signal, claimed in the pipeline's store and acknowledged only once Temporal has it (else 503, and the platform's
// retry or the process's own read of the call covers it); a Notify about a recording goes to the callout whose call it
// names (voice-notify.ts), claimed the same way, and every Notify is answered 200. Any envelope is accepted: unknown
// events and extra fields change nothing, event names are read case-insensitively and `callid` may be spelled `callId`.
import type { FastifyPluginAsync } from 'fastify';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { VoiceSettings } from '../../common/config.js';
import { verifyApplicationCallback } from '../../common/signing.js';
import { VOICE_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { workflowIds } from '../../processes/kinds.js';
import {
  parseCallToken,
  voiceCallEndedSignal,
  type CallInfo,
  type IncomingCallFacts,
  type VoiceCallbackEvent,
  type VoiceCallEnded,
} from '../../processes/voice/contract.js';
import { callingBaseOf } from '../../platform/voice/client.js';
import { IncomingRuleCache, type VoiceCallStore, type VoiceRuleStore } from '../../store/index.js';
import { ApiError } from '../errors.js';
import { answerFromProcess, updateIdOf, within } from './voice-answer.js';
import { handOverRecording, recordingNoticeOf, type RecordingNotice } from './voice-notify.js';
import type { HandedOff, HandOffContext, IntakePipeline } from './intake.js';
import { VoicePlanIntake, type CallOrigin } from './voice-plan.js';

export interface VoiceCallbackOptions {
  intakes: IntakePipeline;
  client: Client;
  taskQueue: string;
  appKey: string;
  appSecret: string;
  settings: VoiceSettings;
  /** The incoming-call rules (store/voice-rules.ts); absent: every incoming call is denied by its process. */
  rules?: VoiceRuleStore | undefined;
  /** Where calls answered from their plan are kept (store/voice-calls.ts); absent: every callback is answered by its process. */
  calls?: VoiceCallStore | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const RESULTS = new Set(['N/A', 'ANSWERED', 'BUSY', 'NOANSWER', 'FAILED']);

/** A voice callback, once read: an ICE, ACE, PIE or DiCE of a call, or a recording notification for a callout. */
type VoiceCallback = { kind: 'ice' | 'ace' | 'pie' | 'dice'; callId: string; body: Obj } | { kind: 'notify'; recording: RecordingNotice };

/** The endpoint of a `{type, endpoint}` (or the spec's `{type, number}`) destination. */
const endpointOf = (v: unknown) => (isObj(v) ? (str(v.endpoint) ?? str(v.number)) : str(v));

/**
 * Who calls whom, from an ICE without relayflow's token: the caller's number (`cli`), the callee (`to`: a number,
 * or an in-app user when `to.type` is username), and for a call from the application's own users
 * (`originationType` mxp) the caller's identity, `user` (public reference: the ICE of an SDK call carries it).
 */
function incomingFacts(body: Obj, baseUrl: string | undefined): IncomingCallFacts {
  const toType = isObj(body.to) ? str(body.to.type)?.toLowerCase() : undefined;
  const origination = str(body.originationType)?.toLowerCase();
  return {
    ...(str(body.cli) ? { from: str(body.cli)! } : {}),
    ...(endpointOf(body.to) ? { to: endpointOf(body.to)! } : {}),
    ...(toType ? { toType } : {}),
    ...(origination ? { origination } : {}),
    ...(str(body.user) ? { user: str(body.user)! } : {}),
    ...(baseUrl ? { baseUrl } : {}),
  };
}

function badRequest(field: string, message: string): ApiError {
  return new ApiError(400, 'validation_failed', `${field}: ${message}`, [{ field, rule: 'required', message }]);
}

export const voiceCallbackRoutes: FastifyPluginAsync<VoiceCallbackOptions> = async (app, opts) => {
  const { intakes, client, settings } = opts;
  // Read on every ICE: cached, dropped when a rule changes through this instance, read again after RULE_CACHE_TTL_MS.
  const rules = opts.rules ? new IncomingRuleCache(opts.rules) : undefined;
  const follow = { checkEveryMs: settings.checkEveryMs, inDoubtWaitMs: settings.inDoubtWaitMs };
  const deps = {
    client,
    taskQueue: opts.taskQueue,
    deadlineMs: settings.answerDeadlineMs,
    follow,
    ruleFor: async (facts: IncomingCallFacts) => (rules ? rules.match(facts) : undefined),
  };
  const plan = opts.calls ? new VoicePlanIntake({ client, taskQueue: opts.taskQueue, calls: opts.calls, rules, follow, log: app.log }) : undefined;
  if (plan) app.addHook('onClose', () => plan.close());
  /** What the store may take of the deadline before the process is asked instead (the rest is the update's). */
  const planDeadlineMs = Math.floor(settings.answerDeadlineMs / 2);

  intakes.route<VoiceCallback>(app, {
    intake: 'voice',
    url: VOICE_CALLBACK_PATH,
    verify: (req) => verifyApplicationCallback(req, opts.appKey, opts.appSecret),
    read: (req, rawBody, log) => {
      const body = isObj(req.body) ? req.body : {};
      const event = str(body.event)?.toLowerCase();
      if (!event) throw badRequest('body.event', 'the callback names no event');
      if (!['ice', 'ace', 'pie', 'dice', 'notify'].includes(event)) {
        log.warn({ event }, 'unknown voice callback event acknowledged and ignored');
        return { answer: { body: {} } };
      }
      if (event === 'notify') {
        // Answered 200 in any case: an unanswered Notify is discarded, never sent again (spec).
        const recording = recordingNoticeOf(body, log);
        return recording ? { eventId: recording.notice.eventId, event: { kind: 'notify', recording } } : { answer: { body: {} } };
      }
      const callId = str(body.callid) ?? str(body.callId);
      if (!callId) throw badRequest('body.callid', 'the callback names no call');
      return { eventId: updateIdOf(event, callId, rawBody), event: { kind: event as 'ice' | 'ace' | 'pie' | 'dice', callId, body } };
    },
    // ICE, ACE and PIE: a repeat gets the answer it was given, kept with the call in the store (answered from the plan) or
    // by Temporal under the update's ID (answered by the process). A DiCE from the plan is kept with the call too.
    dedupe: 'hand-off',
    handOff: (cb, ctx) =>
      cb.kind === 'notify' ? notify(cb.recording, ctx) : cb.kind === 'dice' ? dice(cb.callId, cb.body, ctx) : answer(cb.kind, cb.callId, cb.body, ctx),
  });

  /** A Notify goes on after its answer when its signal is slow; a repeat, or one another delivery is handing over, is dropped. */
  async function notify(recording: RecordingNotice, { claim, log }: HandOffContext): Promise<HandedOff> {
    // Without the store's answer it is handed over anyway: the callout keeps each notice once.
    const seen = await claim().catch(() => 'new' as const);
    if (seen !== 'new') {
      log.info({ processId: recording.processId, eventId: recording.notice.eventId }, 'recording notification repeated: already handed over');
      return { answer: { body: {} }, duplicate: true };
    }
    const { answered, recorded } = handOverRecording(client, settings.answerDeadlineMs, recording, log);
    await answered;
    return { answer: { body: {} }, applied: recorded };
  }

  /** The call's process (or the intake's relay of it) learns how the call ended; 503 while Temporal cannot take it. */
  async function dice(callId: string, body: Obj, { claim, eventId, log }: HandOffContext): Promise<HandedOff> {
    const token = parseCallToken(str(body.custom));
    const processId = token?.processId ?? workflowIds['voice-incoming'](callId);
    const result = str(body.result);
    const ended: VoiceCallEnded = {
      callId,
      ...(token ? { leg: token.leg, attempt: token.attempt } : {}),
      receivedAt: new Date().toISOString(),
      source: 'dice',
      ...(result && RESULTS.has(result) ? { result: result as CallInfo['result'] } : {}),
      ...(str(body.reason) ? { reason: str(body.reason)! } : {}),
      ...(num(body.duration) !== undefined ? { durationSeconds: num(body.duration)! } : {}),
    };
    // A call answered from its plan learns its end in order after its answers, through the store.
    if (plan && (!token || token.ace)) {
      try {
        if (await within(plan.ended(ended, eventId), planDeadlineMs)) return { answer: {} };
      } catch (err) {
        log.warn({ processId, callId, err: (err as Error).message }, 'DiCE not recorded in the store; signalling the process');
        await within(plan.flush(callId), planDeadlineMs).catch(() => log.warn({ processId, callId }, 'voice events not relayed before the process took over'));
      }
    }
    // With the store away it is signalled anyway: the process keeps a call's first end.
    const seen = await claim().catch(() => 'new' as const);
    if (seen === 'repeat') return { answer: {}, duplicate: true };
    if (seen === 'in-flight') throw new ApiError(503, 'in_flight', 'another delivery of this event is being recorded; retry later', undefined, 5_000);
    try {
      await client.workflow.getHandle(processId).signal(voiceCallEndedSignal, ended);
    } catch (err) {
      // A call relayflow does not follow (or whose process has ended) has nothing to learn; anything else
      // (Temporal away) must come again, so it is not acknowledged.
      if (!(err instanceof WorkflowNotFoundError)) throw new ApiError(503, 'unavailable', 'could not record the callback; retry later', undefined, 5_000);
      log.info({ processId, callId }, 'DiCE for a call no running process follows');
    }
    return { answer: {} };
  }

  /** ICE, ACE or PIE: answered from the plan where the intake holds it, else by the call's process within the deadline. */
  async function answer(event: 'ice' | 'ace' | 'pie', callId: string, body: Obj, { eventId, req, log }: HandOffContext): Promise<HandedOff> {
    const token = parseCallToken(str(body.custom));
    const processId = token?.processId ?? workflowIds['voice-incoming'](callId);
    const ev: VoiceCallbackEvent = { event, callId, ...(token ? { leg: token.leg, attempt: token.attempt } : {}), receivedAt: new Date().toISOString() };
    if (isObj(body.amd) && str(body.amd.status))
      ev.amd = {
        status: str(body.amd.status)!,
        ...(str(body.amd.reason) ? { reason: str(body.amd.reason)! } : {}),
        ...(num(body.amd.duration) !== undefined ? { duration: num(body.amd.duration)! } : {}),
      };
    if (isObj(body.menuResult) && str(body.menuResult.type)) {
      const m = body.menuResult;
      ev.menuResult = { type: str(m.type)!, ...(str(m.menuId) ? { menuId: str(m.menuId)! } : {}), ...(str(m.value) ? { value: str(m.value)! } : {}) };
    }
    const resourceUrl = str(body.callResourceUrl);
    if (resourceUrl) ev.callResourceUrl = resourceUrl;
    // An ICE without relayflow's token is a call from the phone network: it starts its own process.
    const baseUrl = resourceUrl ? callingBaseOf(resourceUrl) : undefined;
    const incoming = !token && event === 'ice' ? incomingFacts(body, baseUrl) : undefined;
    const started = Date.now();
    // A callout's token carries the plan of its ACE (text-to-speech, conference); its other callbacks go to the process.
    if (plan && (!token || (token.ace && event === 'ace'))) {
      const origin: CallOrigin | undefined = incoming
        ? { incoming }
        : token?.ace
          ? { callout: { processId: token.processId, leg: token.leg, attempt: token.attempt, ace: token.ace } }
          : undefined;
      try {
        const svaml = await within(plan.answer(ev, eventId, origin), planDeadlineMs);
        if (svaml) {
          log.debug({ processId, event, callId, action: svaml.action.name, answerMs: Date.now() - started }, 'voice callback answered from the plan');
          return { answer: { body: svaml, headers: { 'x-relayflow-answered-by': 'plan' } } };
        }
      } catch (err) {
        log.warn({ processId, event, callId, err: (err as Error).message }, 'voice callback not answered from the plan; asking the process');
        // The process is asked instead of the plan: it first gets what this instance answered from the plan and holds.
        await within(plan.flush(callId), Math.max(0, planDeadlineMs - (Date.now() - started))).catch(() =>
          log.warn({ processId, callId }, 'voice events not relayed before the process took over'),
        );
      }
    }
    const left = { ...deps, deadlineMs: Math.max(0, settings.answerDeadlineMs - (Date.now() - started)) };
    const given = await answerFromProcess(left, processId, ev, req.rawBody ?? Buffer.alloc(0), incoming, log);
    log.info({ processId, event, callId, action: given.svaml.action.name, by: given.by, answerMs: given.ms }, 'voice callback answered');
    return { answer: { body: given.svaml, headers: { 'x-relayflow-answered-by': given.by } } };
  }
};
