// Applying the platform's answers to a verification's state: a start's answer, a callback, a status read and a
// reported code's result. Each only records and decides; the calls that got the answers are elsewhere.
import type { PlatformVerificationEvent, ReportOutcome, StartVerificationOutput, VerificationActivities } from '../../contract.js';
import type { PlatformOutcome, VerificationState } from './verification-state.js';

// The platform's own types stay in platform/ (workflows do not import it): named here by the activities' results.
type ReportResult = Awaited<ReturnType<VerificationActivities['reportCode']>>;
type VerificationStatus = Awaited<ReturnType<VerificationActivities['getVerificationStatus']>>;

const outcomeOf = (status: string, reason?: string): PlatformOutcome => ({ status, ...(reason ? { reason } : {}) });

/** A start's answer: it is now the current verification, and may already be decided (a resumed start). `note`: the history's words for it. */
export function applyStart(v: VerificationState, step: number, token: string, started: StartVerificationOutput, note?: string): void {
  const { method } = v.input.steps[step]!;
  const language = started.contentLanguage ? { language: started.contentLanguage } : {};
  v.details.current = {
    step,
    method,
    verificationId: started.verificationId,
    ...language,
    ...(started.sms ? { sms: started.sms } : {}),
    ...(started.flashCall ? { flashCall: started.flashCall } : {}),
    ...(started.callout ? { callout: started.callout } : {}),
    ...(started.seamless ? { seamless: started.seamless } : {}),
    ...(started.whatsapp ? { whatsapp: started.whatsapp } : {}),
  };
  v.details.platformVerifications.push({ verificationId: started.verificationId, token, step, method, status: 'PENDING', ...language });
  v.details.smsDelivery = undefined;
  v.lastSendAt = Date.now();
  v.stepOutcome = started.status !== 'PENDING' ? outcomeOf(started.status, started.reason) : undefined;
  // The first send needs no last-change memo: it is the start's own answer, and the listing's start time says when.
  if (note) v.tracker.moveTo('PENDING', note);
  else if (v.firstSend(step)) v.tracker.moveTo('PENDING', `${method} sent`, { memo: false });
  else v.tracker.moveTo('PENDING', `${method} sent (step ${step + 1}, send ${v.sendNo})`);
}

/** A callback. Results of superseded verifications (a resend or an earlier step) do not move the process. */
export function applyEvent(v: VerificationState, e: PlatformVerificationEvent): void {
  if (!v.seenEvents.firstTime(e.eventId)) return;
  const current = e.verificationId === v.currentId();
  if (e.kind === 'sms-delivered') {
    if (current) v.details.smsDelivery = e.smsResult;
    if (current && e.smsResult === 'Failed') v.stepOutcome = { status: 'FAIL', reason: 'SMS delivery failure' };
    return;
  }
  if (!e.status || e.status === 'PENDING') return;
  v.platformSaid.add(e.verificationId);
  v.record(e.verificationId, e.status, e.reason);
  if (current) v.stepOutcome = outcomeOf(e.status, e.reason);
}

/** A status read of `id`: it ends the step only if the step still waits on `id`. */
export function applyStatus(v: VerificationState, id: string, s: VerificationStatus): void {
  if (s.status === 'PENDING') return;
  v.platformSaid.add(id);
  if (id !== v.currentId() || v.stepOutcome) return;
  v.record(id, s.status, s.reason);
  v.stepOutcome = outcomeOf(s.status, s.reason);
}

/** A reported code's result (the attempt is already counted), and the report's answer. */
export function applyReport(v: VerificationState, verificationId: string, res: ReportResult): ReportOutcome {
  const ok = res.status === 'SUCCESSFUL';
  if (ok) {
    v.record(verificationId, 'SUCCESSFUL');
    v.finish('SUCCESSFUL');
  } else if (v.attemptsLeft() === 0) {
    v.finish('FAIL', `${res.reason ?? 'Invalid code'}; no report attempts left`);
  }
  const result = ok ? { result: 'SUCCESSFUL' as const } : { result: 'FAIL' as const, reason: res.reason ?? 'Invalid code' };
  return { accepted: true, state: v.state, ...result, attemptsLeft: v.attemptsLeft() };
}
