// Recording notifications (Notify `recording_finished`, `recording_available`) handed to the callout whose call
// they are about, found by relayflow's token in `custom`. The platform discards a Notify that is not answered in
// time and never sends it again (spec), so it is answered 200 whatever happens here: the signal gets at most
// `deadlineMs` before the answer, and one still pending then goes on after it (logged if it fails). Its event ID is
// its type, call, conference and destination: a repeat at any API instance is dropped by the intake pipeline
// (intake.ts), and the callout keeps each once.
import type { FastifyBaseLogger } from 'fastify';
import { createHash } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { parseCallToken, voiceRecordingSignal, type VoiceRecordingNotice } from '../../processes/voice/contract.js';
import { within } from './voice-answer.js';

type Obj = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const RECORDING_TYPES = new Set<string>(['recording_finished', 'recording_available']);

export interface RecordingNotice {
  processId: string;
  notice: VoiceRecordingNotice;
}

/** The recording notification in a Notify, with the callout it is for; undefined (logged) when it is none of relayflow's. */
export function recordingNoticeOf(body: Obj, log: FastifyBaseLogger): RecordingNotice | undefined {
  const type = str(body.type);
  if (!type || !RECORDING_TYPES.has(type)) {
    log.info({ type }, 'voice notification acknowledged (not a recording)');
    return undefined;
  }
  const callId = str(body.callid) ?? str(body.callId);
  const token = parseCallToken(str(body.custom));
  if (!callId || !token) {
    log.info({ type, callId }, 'recording notification for a call no callout placed: acknowledged, not recorded');
    return undefined;
  }
  const conferenceId = str(body.conferenceId);
  const destination = str(body.destination);
  const digest = createHash('sha256')
    .update(JSON.stringify([conferenceId ?? '', destination ?? '']))
    .digest('base64url')
    .slice(0, 22);
  return {
    processId: token.processId,
    notice: {
      eventId: `${type}:${callId}:${digest}`,
      type: type as VoiceRecordingNotice['type'],
      callId,
      leg: token.leg,
      attempt: token.attempt,
      ...(conferenceId ? { conferenceId } : {}),
      ...(destination ? { destination } : {}),
      receivedAt: new Date().toISOString(),
    },
  };
}

/**
 * Signals the notice to its callout; never rejects. `recorded` settles true once the callout has it (or has ended: nothing
 * to record it in), false when it could not be recorded (a repeat may try again); `answered` once the answer may go.
 */
export function handOverRecording(
  client: Client,
  deadlineMs: number,
  { processId, notice }: RecordingNotice,
  log: FastifyBaseLogger,
): { answered: Promise<void>; recorded: Promise<boolean> } {
  const recorded = client.workflow
    .getHandle(processId)
    .signal(voiceRecordingSignal, notice)
    .then(
      () => true,
      (err: unknown) => {
        if (err instanceof WorkflowNotFoundError) {
          log.info({ processId, type: notice.type }, 'recording notification for a callout that has ended');
          return true;
        }
        log.warn({ processId, type: notice.type, err: (err as Error).message }, 'recording notification not recorded in its callout');
        return false;
      },
    );
  const answered = within(recorded, deadlineMs).then(
    () => undefined,
    () => log.warn({ processId, type: notice.type }, `recording notification still being handed over after ${deadlineMs} ms; answered meanwhile`),
  );
  return { answered, recorded };
}
