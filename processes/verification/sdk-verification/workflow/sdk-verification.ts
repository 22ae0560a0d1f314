// A verification relayflow did not start (a mobile SDK's), adopted by the platform's verification ID so the audit
// has it: its request event (method, when, relayflow's answer and why), its result event (status, reason, source),
// and the SMS receipt, each recorded once. It ends with the platform's status. With no result in time it reads the
// platform's status by ID instead (a lost callback), and while that says PENDING, waits and reads again; it ends
// UNKNOWN, saying so, when no read tells a final status. It sends nothing and answers nothing: the intake answered.
import { allHandlersFinished, condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { VerificationStatus } from '../../../../common/wire/verification.js';
import {
  sdkVerificationEventSignal,
  type RequestAnswer,
  type SdkVerificationEvent,
  type SdkVerificationInput,
  type SdkVerificationState,
} from '../contract.js';
import { sdkVerification as sdkVerificationKind } from '../kind.js';
import type { VerificationActivities } from '../../contract.js';
import { platformActivityOptions } from '../../../shared/workflow/activity-options.js';
import { rootMessage } from '../../../shared/workflow/failure-text.js';
import { HandledMemory } from '../../../shared/workflow/handled-memory.js';
import { trackProcess } from '../../../shared/workflow/process-state.js';

// A status read may wait out a short outage, not a long one: the process then ends UNKNOWN and says why.
const { getVerificationStatus } = proxyActivities<VerificationActivities>({
  ...platformActivityOptions,
  scheduleToCloseTimeout: '2 minutes',
});

/** Status reads while the platform says PENDING, one per result wait, before the process ends UNKNOWN. */
const MAX_READS = 4;
/** Events an adopted verification has: a request, a result, a receipt, and their repeats. */
const KEEP_SEEN = 50;
const FINAL = sdkVerificationKind.states.final;

interface PlatformResult {
  at: string;
  status: string;
  reason?: string;
  source?: string;
  /** How relayflow learned it: the result event, or a status read after the wait. */
  via: 'result event' | 'status read';
}

interface SdkVerificationDetails {
  verificationId: string;
  method?: string;
  /** E.164: in the status (an encrypted payload) only. */
  identity?: string;
  reference?: string;
  request?: { at: string } & RequestAnswer;
  result?: PlatformResult;
  smsDelivery?: string;
  /** How many times it read the platform's status, the result event not having come in time. */
  statusReads?: number;
  /** The audit page's verification picture (api/routes/ui/static/calls.js): one step, one platform verification. */
  steps: { method: string }[];
  currentStep: 0;
  platformVerifications: { verificationId: string; step: 0; method: string; status: string; reason?: string }[];
}

export async function sdkVerification(input: SdkVerificationInput): Promise<{ state: SdkVerificationState; reason?: string }> {
  const tracker = trackProcess<SdkVerificationState, SdkVerificationDetails>('sdk-verification', 'PENDING', {
    verificationId: input.verificationId,
    steps: [],
    currentStep: 0,
    platformVerifications: [],
  });
  const d = tracker.status.details;
  const seen = HandledMemory.ofIds(undefined, KEEP_SEEN);
  let reason: string | undefined;
  const final = () => tracker.status.state !== 'PENDING';

  const end = (state: SdkVerificationState, why: string) => {
    reason = why;
    tracker.moveTo(state, why);
  };
  // A final status ends it; PENDING (a status read before the end) changes nothing.
  const learn = (r: PlatformResult) => {
    if (final() || r.status === 'PENDING') return;
    d.result = r;
    const pv = d.platformVerifications[0];
    if (pv) Object.assign(pv, { status: r.status }, r.reason ? { reason: r.reason } : {});
    const said = `${r.status}${r.reason ? `: ${r.reason}` : ''}${r.source ? ` (${r.source})` : ''}, by its ${r.via}`;
    if ((FINAL as readonly string[]).includes(r.status)) end(r.status as SdkVerificationState, `the platform said ${said}`);
    else end('UNKNOWN', `the platform said ${said}, a status relayflow does not know`);
  };

  setHandler(sdkVerificationEventSignal, (e: SdkVerificationEvent) => {
    if (!seen.firstTime(e.eventId)) return; // a repeated delivery records nothing
    if (!d.method) {
      d.method = e.method;
      d.identity = e.identity;
      if (e.reference) d.reference = e.reference;
      d.steps = [{ method: e.method }];
      d.platformVerifications = [{ verificationId: e.verificationId, step: 0, method: e.method, status: 'PENDING' }];
    }
    if (e.kind === 'request' && e.answer && !d.request) {
      d.request = { at: e.at, ...e.answer };
      // A line in the state's history: when the request came and what relayflow answered.
      if (!final()) tracker.moveTo('PENDING', `${e.method} requested; relayflow answered ${e.answer.action}: ${e.answer.why}`);
    } else if (e.kind === 'result' && e.status) {
      learn({
        at: e.at,
        status: e.status,
        ...(e.reason ? { reason: e.reason } : {}),
        ...(e.source ? { source: e.source } : {}),
        via: 'result event',
      });
    } else if (e.kind === 'sms-delivered' && e.smsResult) d.smsDelivery = e.smsResult;
  });

  for (let reads = 0; !final();) {
    // The wait's timer is left running when the result ends it: the run completes with it (no TimerCanceled).
    await Promise.race([condition(final), sleep(input.resultWaitMs)]);
    if (final()) break;
    reads += 1;
    d.statusReads = reads;
    const minutes = Math.round((reads * input.resultWaitMs) / 60_000);
    let status: VerificationStatus;
    try {
      status = await getVerificationStatus({ verificationId: input.verificationId });
    } catch (err) {
      if (!final()) end('UNKNOWN', `no result event within ${minutes} min, and the platform's status could not be read: ${rootMessage(err)}`);
      break;
    }
    learn({
      at: new Date().toISOString(),
      status: status.status,
      ...(status.reason ? { reason: status.reason } : {}),
      ...(status.source ? { source: status.source } : {}),
      via: 'status read',
    });
    if (!final() && reads >= MAX_READS) end('UNKNOWN', `no result event within ${minutes} min, and the platform still says PENDING`);
  }
  // Signals handled in the closing task are recorded; one after the close is answered by the intake (the ID is spent).
  await condition(allHandlersFinished);
  return { state: tracker.status.state, ...(reason ? { reason } : {}) };
}
