// The CHATA sender errorCode values (spec part G) and whether waiting or retrying can fix them. Terminal
// codes need the caller (or the business) to change something: they end the onboarding attempt with the
// code. The others name a step the platform failed and may retry: the process reports them and waits.
import { CHATA_UNVERIFIED_NUMBER_ERRORS, type ChataSenderErrorCode } from '../contract.js';

export const CHATA_SENDER_ERRORS: Readonly<Record<ChataSenderErrorCode, { terminal: boolean; why: string }>> = {
  NOVA_ACCOUNT_ID_CONFLICT: { terminal: true, why: 'the account ID belongs to another setup' },
  NO_NOVA_ACCOUNT_ID: { terminal: true, why: 'no account ID is configured' },
  PROJECT_ID_CONFLICT: { terminal: true, why: 'the project is linked elsewhere' },
  NO_PROJECT_ID: { terminal: true, why: 'no project is linked' },
  NO_PRICING_PLAN: { terminal: true, why: 'the project has no pricing plan' },
  NO_VERIFIED_PHONE_NUMBER: { terminal: true, why: 'the phone number must be verified first' },
  NOT_VERIFIED_REQUESTED_PHONE_NUMBER: { terminal: true, why: 'the requested phone number is not verified' },
  DUPLICATES_ON_SENDER_PHONE_NUMBER: { terminal: true, why: 'another sender uses this phone number' },
  MULTIPLE_WABA_FOR_PROJECT_ID: { terminal: true, why: 'the project has several business accounts' },
  NOT_VERIFY_BUSINESS_VIA_CHATA: { terminal: true, why: 'the business must be verified with the channel owner' },
  WABA_CONNECTED_TO_ANOTHER_PROJECT: { terminal: true, why: 'the business account belongs to another project' },
  SENDER_HAS_BEEN_DELETED: { terminal: true, why: 'the sender was deleted' },
  CANNOT_ASSIGN_CREDIT_LINE: { terminal: false, why: 'a platform step failed (credit line)' },
  CANNOT_SUBSCRIBE_TO_WEBHOOK: { terminal: false, why: 'a platform step failed (webhook subscription)' },
  CANNOT_ASSIGN_SYSTEM_USER: { terminal: false, why: 'a platform step failed (system user)' },
  CANNOT_GET_WABA_DETAILS: { terminal: false, why: 'a platform step failed (business account details)' },
  CANNOT_CREATE_NEW_CHATA_BOT: { terminal: false, why: 'a platform step failed (bot creation)' },
  CANNOT_REGISTER_NEW_CHATA_BOT: { terminal: false, why: 'a platform step failed (bot registration)' },
  FAILED_TO_FETCH_APPROVED_MESSAGE_TEMPLATES: { terminal: false, why: 'a platform step failed (templates)' },
  CANNOT_CREATE_WABA_FOR_BUSINESS: { terminal: false, why: 'a platform step failed (business account creation)' },
  CANNOT_SUBSCRIBE_TO_CLOUD_API: { terminal: false, why: 'a platform step failed (cloud API subscription)' },
  CANNOT_GET_DETAILS_FOR_CLOUD_API: { terminal: false, why: 'a platform step failed (cloud API details)' },
  CANNOT_REGISTER_TO_CLOUD_API: { terminal: false, why: 'a platform step failed (cloud API registration)' },
  NO_CERTIFICATE_AVAILABLE: { terminal: false, why: 'the certificate is not issued yet' },
  UNKNOWN_ERROR: { terminal: false, why: 'the platform reported an unknown error' },
  UNRECOGNIZED: { terminal: false, why: 'the platform reported an unrecognised error' },
};

/** Codes the spec does not name (the platform adds some over time) are treated as retryable. */
export function isTerminalChataError(code: string | undefined): boolean {
  return code !== undefined && (CHATA_SENDER_ERRORS as Record<string, { terminal: boolean }>)[code]?.terminal === true;
}

/** The number is not verified yet: a verification code clears it (a CHATA process then waits for the caller's code). */
export function isUnverifiedNumberError(code: string | undefined): boolean {
  return code !== undefined && CHATA_UNVERIFIED_NUMBER_ERRORS.includes(code);
}
