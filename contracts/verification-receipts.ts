// What relayflow's store keeps of a verification's SMS receipts until its process takes them.

/**
 * A Successful SMS receipt of one of the process's platform verifications, which only needs recording: relayflow's
 * store keeps it until a message the process gets anyway carries it (`receipts` of a report, resend, cancel or
 * platform event), or the process reads it there before ending without one. Its event ID is the one a signal of it has.
 */
export interface SmsReceipt {
  eventId: string;
  verificationId: string;
  smsResult: 'Successful' | 'Failed';
  /** When relayflow recorded it (ISO 8601). */
  receivedAt: string;
}
