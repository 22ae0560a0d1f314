// Answering a voice callback from its call's process, within a deadline. The platform waits a few seconds for an
// ICE, ACE or PIE answer and then applies its own fallback; relayflow answers the same fallback itself a little
// earlier (answerDeadlineMs), so the platform never waits on Temporal and the process learns that it was late.
import type { FastifyBaseLogger } from 'fastify';
import { createHash } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { KIND, STATE } from '../../common/search-attributes.js';
import { svamlViolations } from '../../common/wire/voice-svaml.js';
import { workflowIds } from '../../processes/kinds.js';
import { voiceIncoming } from '../../processes/voice/voice-incoming/kind.js';
import {
  VOICE_INCOMING_KIND,
  voiceCallbackUpdate,
  voiceFallbackSignal,
  type Svaml,
  type IncomingCallFacts,
  type VoiceCallbackEvent,
  type VoiceFollowSettings,
  type VoiceIncomingInput,
} from '../../processes/voice/contract.js';
import type { RuleMatch } from '../../store/index.js';

const FALLBACK_TEXT = 'We are sorry, the service is not available right now. Please try again later.';

/**
 * The spec's rule when no answer comes in time: ICE plays an error and hangs up, ACE continues (the call is
 * connected). PIE has no rule in the spec; relayflow apologises and hangs up, since a menu whose process is away
 * cannot go anywhere useful.
 */
function fallbackSvaml(event: VoiceCallbackEvent['event']): Svaml {
  if (event === 'ace') return { action: { name: 'continue' } };
  return { instructions: [{ name: 'say', text: FALLBACK_TEXT, locale: 'en-US' }], action: { name: 'hangup' } };
}

export interface AnswerDeps {
  client: Client;
  taskQueue: string;
  deadlineMs: number;
  follow: VoiceFollowSettings;
  /** The rule an incoming call's ICE picks; undefined: the call is denied by its process. */
  ruleFor: (facts: IncomingCallFacts) => Promise<RuleMatch | undefined>;
}

/** An incoming call's process input: the ICE's facts and the rule they picked (with why). */
export function incomingInput(callId: string, facts: IncomingCallFacts, follow: VoiceFollowSettings, match: RuleMatch | undefined): VoiceIncomingInput {
  return {
    ...follow,
    callId,
    ...(facts.from ? { from: facts.from } : {}),
    ...(facts.to ? { to: facts.to } : {}),
    // A number's type (number, or the platform's did) says nothing the number does not.
    ...(facts.toType && !['number', 'did'].includes(facts.toType) ? { toType: facts.toType } : {}),
    ...(facts.user ? { user: facts.user } : {}),
    ...(facts.baseUrl ? { baseUrl: facts.baseUrl } : {}),
    ...(match ? { rule: match.rule, ruleMatchedBy: match.by } : {}),
  };
}

export interface Answer {
  svaml: Svaml;
  /** plan: the intake, from the call's plan (voice-plan.ts); process: an update; fallback: past the deadline. */
  by: 'plan' | 'process' | 'fallback';
  why?: string;
  ms: number;
}

class Late extends Error {}

export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Late(`no answer within ${ms} ms`)), ms);
  });
  // The update may still finish after the deadline: its result is not wanted, and must not go unhandled.
  p.catch(() => undefined);
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** One update per callback delivery: a repeated delivery (same bytes) is the same update and gets the same answer. */
export const updateIdOf = (event: string, callId: string, rawBody: Buffer) =>
  `${event}:${callId}:${createHash('sha256').update(rawBody).digest('base64url').slice(0, 22)}`;

export async function answerFromProcess(
  deps: AnswerDeps,
  processId: string | undefined,
  ev: VoiceCallbackEvent,
  rawBody: Buffer,
  incoming: IncomingCallFacts | undefined,
  log: FastifyBaseLogger,
): Promise<Answer> {
  const started = Date.now();
  const updateId = updateIdOf(ev.event, ev.callId, rawBody);
  const id = processId ?? workflowIds['voice-incoming'](ev.callId);
  let svaml: Svaml;
  try {
    const work =
      incoming && ev.event === 'ice'
        ? startIncoming(deps, id, ev, updateId, incoming)
        : deps.client.workflow.getHandle(id).executeUpdate(voiceCallbackUpdate, { args: [ev], updateId });
    svaml = await within(work, deps.deadlineMs);
  } catch (err) {
    return fallback(deps, id, ev, started, err instanceof Error ? err.message : String(err), log);
  }
  const problems = svamlViolations(ev.event, svaml);
  if (problems.length) return fallback(deps, id, ev, started, `the process answered SVAML the platform would refuse: ${problems.join('; ')}`, log);
  return { svaml, by: 'process', ms: Date.now() - started };
}

async function startIncoming(deps: AnswerDeps, workflowId: string, ev: VoiceCallbackEvent, updateId: string, facts: IncomingCallFacts): Promise<Svaml> {
  const input = incomingInput(ev.callId, facts, deps.follow, await deps.ruleFor(facts));
  const start = new WithStartWorkflowOperation(voiceIncoming.workflowType, {
    workflowId,
    taskQueue: deps.taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: KIND, value: VOICE_INCOMING_KIND },
      { key: STATE, value: 'RINGING' },
    ],
  });
  return deps.client.workflow.executeUpdateWithStart(voiceCallbackUpdate, { args: [ev], updateId, startWorkflowOperation: start });
}

function fallback(deps: AnswerDeps, processId: string, ev: VoiceCallbackEvent, started: number, why: string, log: FastifyBaseLogger): Answer {
  const svaml = fallbackSvaml(ev.event);
  log.warn({ processId, event: ev.event, callId: ev.callId, why }, 'voice callback answered by the fallback');
  // Best effort, not awaited: the answer is due now. A process that does not exist (or Temporal away) misses it.
  deps.client.workflow
    .getHandle(processId)
    .signal(voiceFallbackSignal, {
      callId: ev.callId,
      event: ev.event,
      at: new Date().toISOString(),
      action: svaml.action.name,
      why,
      ...(ev.leg !== undefined ? { leg: ev.leg } : {}),
      ...(ev.attempt !== undefined ? { attempt: ev.attempt } : {}),
    })
    .catch((err: unknown) => log.info({ processId, err: (err as Error).message }, 'could not tell the process about the fallback'));
  return { svaml, by: 'fallback', why, ms: Date.now() - started };
}
