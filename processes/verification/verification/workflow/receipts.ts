// A verification's Successful SMS receipts, which come without a signal of their own: the callback intake records them
// in relayflow's store, and the next message the process gets anyway carries them. A process about to end without
// such a message (its step's time is up, a cancel that carried none, an ERROR) reads them there once, so its audit
// still says whether the SMS was delivered: the failure case is where that matters.
import { CancellationScope, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import { receiptEvent, type CarriesReceipts, type VerificationActivities } from '../../contract.js';
import { applyEvent } from './platform-answers.js';
import type { VerificationState } from './verification-state.js';

// A local activity that only reads the store: a few quick attempts, since only the audit waits on it.
const { smsReceipts } = proxyLocalActivities<VerificationActivities>({
  startToCloseTimeout: '5 seconds',
  retry: { initialInterval: '200 milliseconds', maximumAttempts: 3 },
});

/** Applies the receipts a message carried, as their signals would have been (a repeated event ID is dropped). */
export function applyReceipts(v: VerificationState, message: CarriesReceipts | undefined): void {
  for (const r of message?.receipts ?? []) applyEvent(v, receiptEvent(r));
}

/** Reads the process's receipts from the store, once per platform verification, if its current SMS's delivery is not known. */
export async function readReceipts(v: VerificationState): Promise<void> {
  const current = v.details.current;
  if (current?.method !== 'sms' || v.details.smsDelivery !== undefined || v.receiptsReadFor === current.verificationId) return;
  v.receiptsReadFor = current.verificationId;
  try {
    // Not cancellable: a cancelled run still records what the store holds before it closes.
    applyReceipts(v, await CancellationScope.nonCancellable(() => smsReceipts({ processId: workflowInfo().workflowId })));
  } catch {
    // The store did not answer: the process ends as it would have, its audit without the receipt.
  }
}
