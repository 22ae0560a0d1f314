// The verification's handlers: the API's updates (started, report, resend, cancel) and the platform's callbacks
// (a signal). Each answers through the state, so closing the run can wait for a workflow task that answered none.
// Every message but `started` may carry SMS receipts recorded in the store meanwhile (receipts.ts): applied first.
import { condition, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import { platformLocalActivityOptions } from '../../../shared/workflow/activity-options.js';
import { applyEvent, applyReport } from './platform-answers.js';
import { applyReceipts } from './receipts.js';
import type { VerificationState } from './verification-state.js';
import {
  cancelUpdate,
  platformEventSignal,
  reportUpdate,
  resendUpdate,
  startedUpdate,
  type ReportOutcome,
  type ResendOutcome,
  type VerificationActivities,
} from '../../contract.js';

// A local activity: the call runs inside the workflow task that needs it (see activity-options).
const { reportCode } = proxyLocalActivities<VerificationActivities>(platformLocalActivityOptions);

/**
 * Installs the handlers, in the order the recorded runs have them. The updates keep their operationId memories by
 * hand, not through operationsOn: its validator would skip a repeated report's code check, and its extra await
 * before the work (or the answer) could move an answer among a workflow task's commands. A step's wait ends on
 * an outcome only once these have answered (await-step.ts), so its commands come in one order whatever the
 * interceptors await.
 */
export function installHandlers(v: VerificationState): void {
  // Answers once the first platform verification is accepted (or the process ended before that).
  setHandler(startedUpdate, async () => {
    await condition(() => !v.starting || v.final());
    return v.answer(v.startedView());
  });

  setHandler(platformEventSignal, (e) => {
    applyReceipts(v, e);
    applyEvent(v, e);
  });

  setHandler(
    reportUpdate,
    async (request) => {
      const { code, operationId } = request;
      applyReceipts(v, request);
      const known = v.reportOutcomes.get(operationId);
      if (known) return v.answer(known); // a retried report changes nothing
      const refused = reportRefusal(v);
      let outcome: ReportOutcome;
      if (refused) outcome = { accepted: false, state: v.state, reason: refused, attemptsLeft: v.attemptsLeft() };
      else {
        v.details.attempts += 1;
        const target = v.details.current!;
        const method = target.method as 'sms' | 'flashcall' | 'callout';
        outcome = applyReport(v, target.verificationId, await reportCode({ verificationId: target.verificationId, method, code }));
        // Only the answer changes (no command): the API tells the prefix's pumping guard of the success.
        if (outcome.result === 'SUCCESSFUL' && v.input.pumpingGuardId) outcome = { ...outcome, pumping: { guardId: v.input.pumpingGuardId } };
      }
      v.reportOutcomes.set(operationId, outcome);
      return v.answer(outcome);
    },
    {
      validator: ({ code }) => {
        if (!/^[A-Za-z0-9+]{1,32}$/.test(code)) throw new Error('code: must be 1-32 letters or digits');
      },
    },
  );

  setHandler(resendUpdate, async (request) => {
    const { operationId } = request;
    applyReceipts(v, request);
    const known = v.resendOutcomes.get(operationId);
    if (known) return v.answer(known);
    let outcome = resendRefusal(v);
    if (!outcome) {
      v.details.resends += 1;
      v.resendRequested = true;
      const before = v.currentId();
      await condition(() => v.currentId() !== before || v.final() || !v.resendRequested);
      outcome = { resent: v.currentId() !== before, ...(v.details.current ? { current: v.details.current } : {}) };
    }
    v.resendOutcomes.set(operationId, outcome);
    return v.answer(outcome);
  });

  setHandler(cancelUpdate, (request) => {
    const { reason } = request;
    applyReceipts(v, request);
    v.finish('CANCELLED', reason ?? 'cancelled through the API');
    return v.answer({ state: v.state });
  });
}

/** Why a code cannot be reported now, if it cannot. */
function reportRefusal(v: VerificationState): string | undefined {
  if (v.final()) return `the verification is already ${v.state}`;
  if (!v.details.current || v.starting) return 'no verification is waiting for a code yet';
  if (v.details.current.method === 'seamless') return 'a Data (seamless) verification completes on the device, not by a code';
  if (v.attemptsLeft() === 0) return 'no report attempts left';
  if (v.codeExpired()) return 'the code has expired; ask for a resend';
  return undefined;
}

/** Why a resend cannot be made now, if it cannot (the resend's answer). */
function resendRefusal(v: VerificationState): ResendOutcome | undefined {
  const wait = v.resendWait();
  if (v.final()) return { resent: false, reason: `the verification is already ${v.state}` };
  if (v.starting || !v.details.current) return { resent: false, reason: 'the verification has not started yet', retryAfterMs: 1000 };
  if (v.details.resends >= v.input.policy.maxResends) return { resent: false, reason: `at most ${v.input.policy.maxResends} resends` };
  if (wait > 0) return { resent: false, reason: 'resend cooldown', retryAfterMs: wait };
  return undefined;
}
