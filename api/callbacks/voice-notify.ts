// Recording notifications (Notify `recording_finished`, `recording_available`) handed to the callout whose call
// they are about, found by relayflow's token in `custom`. The platform discards a Notify that is not answered in
// time and never sends it again (spec), so it is answered 200 whatever happens here: the signal gets at most
// `deadlineMs` before the answer, and one still pending then goes on after it (logged if it fails). A repeat
// (same type, call, conference and destination) is sent once per API instance; the process keeps each once.
import { createHash } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from '../../common/logger.js';
import { parseCallToken, voiceRecordingSignal, type VoiceRecordingNotice } from '../../contracts/voice.js';
import { within } from './voice-answer.js';

type Obj = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const RECORDING_TYPES = new Set<string>(['recording_finished', 'recording_available']);
/** Notifications remembered per instance to drop repeats (a repeat comes within seconds, not hours). */
const REMEMBERED = 10_000;

export class VoiceRecordingRelay {
  readonly #sent = new Set<string>();

  constructor(
    private readonly client: Client,
    private readonly deadlineMs: number,
  ) {}

  /** Hands a recording notification to its callout; never throws (the Notify is answered 200 regardless). */
  async handOver(body: Obj, log: Logger): Promise<void> {
    const type = str(body.type);
    if (!type || !RECORDING_TYPES.has(type)) {
      log.info({ type }, 'voice notification acknowledged (not a recording)');
      return;
    }
    const callId = str(body.callid) ?? str(body.callId);
    const token = parseCallToken(str(body.custom));
    if (!callId || !token) {
      log.info({ type, callId }, 'recording notification for a call no callout placed: acknowledged, not recorded');
      return;
    }
    const conferenceId = str(body.conferenceId);
    const destination = str(body.destination);
    const digest = createHash('sha256')
      .update(JSON.stringify([conferenceId ?? '', destination ?? '']))
      .digest('base64url')
      .slice(0, 22);
    const notice: VoiceRecordingNotice = {
      eventId: `${type}:${callId}:${digest}`,
      type: type as VoiceRecordingNotice['type'],
      callId,
      leg: token.leg,
      attempt: token.attempt,
      ...(conferenceId ? { conferenceId } : {}),
      ...(destination ? { destination } : {}),
      receivedAt: new Date().toISOString(),
    };
    if (this.#sent.has(notice.eventId)) {
      log.info({ processId: token.processId, eventId: notice.eventId }, 'recording notification repeated: already handed over');
      return;
    }
    this.#remember(notice.eventId);
    const sent = this.client.workflow
      .getHandle(token.processId)
      .signal(voiceRecordingSignal, notice)
      .then(
        () => true,
        (err: unknown) => {
          // Not recorded: a repeat may try again.
          this.#sent.delete(notice.eventId);
          if (err instanceof WorkflowNotFoundError) log.info({ processId: token.processId, type }, 'recording notification for a callout that has ended');
          else log.warn({ processId: token.processId, type, err: (err as Error).message }, 'recording notification not recorded in its callout');
          return false;
        },
      );
    try {
      await within(sent, this.deadlineMs);
    } catch {
      log.warn({ processId: token.processId, type }, `recording notification still being handed over after ${this.deadlineMs} ms; answered meanwhile`);
    }
  }

  #remember(eventId: string): void {
    this.#sent.add(eventId);
    if (this.#sent.size > REMEMBERED) this.#sent.delete(this.#sent.values().next().value!);
  }
}
