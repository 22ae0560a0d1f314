// Activities of phone-number verification: an idempotent start (a retry never sends a second SMS),
// the code / CLI report, the status read, and the read of the process's SMS receipts waiting in relayflow's store.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { PlatformClients } from '../../../platform/index.js';
import type { SmsReceiptStore } from '../../../store/verification-receipts.js';
import { PlatformNotFoundError } from '../../../platform/errors.js';
import type {
  ReportableVerificationMethod,
  ReportResult,
  StartVerificationRequest,
  VerificationReport,
  VerificationStatus,
} from '../../../common/wire/verification.js';
import type {
  FindVerificationInput,
  GetVerificationStatusInput,
  ReportCodeInput,
  SmsReceiptsInput,
  StartVerificationInput,
  StartVerificationOutput,
  VerificationActivities,
} from '../contract.js';
import { withFailureMappingAll } from '../../shared/activities/failures.js';

/** Failure types this module raises itself (besides the mapped Platform*Error classes). */
const VERIFICATION_FAILURE_TYPES = {
  referenceConflict: 'VerificationReferenceConflict',
  notReportable: 'VerificationMethodNotReportable',
} as const;

/** `receipts`: the store the callback intake records SMS receipts in (a worker without one reads none). */
export function createVerificationActivities(clients: Pick<PlatformClients, 'verification'>, receipts?: SmsReceiptStore): VerificationActivities {
  const { verification } = clients;
  return withFailureMappingAll({
    async startVerification(input: StartVerificationInput): Promise<StartVerificationOutput> {
      // Look first: an earlier attempt may have been accepted and lost the answer. Starting again
      // would send a second SMS / call and ABORT the first verification. Only a first try, on the
      // workflow's word and by the attempt number, skips the look-up (one platform call fewer).
      const existing = input.firstTry && isFirstAttempt() ? undefined : await sendOf(verification, input);
      if (existing) return existing;

      const reference = input.reference ?? input.token;
      const req: StartVerificationRequest = {
        identity: { type: 'number', endpoint: input.identity },
        method: input.method,
        reference,
        custom: input.token,
        sms: input.method === 'sms' && input.sms ? smsOptions(input.sms) : undefined,
        whatsapp: input.method === 'whatsapp' && input.whatsapp ? compact({ ...input.whatsapp }) : undefined,
      };
      // PlatformDeniedError (403/40300) propagates as a non-retryable failure; the workflow records DENIED.
      const { verification: started, contentLanguage } = await verification.start(req, { language: input.language });
      return compact({
        verificationId: started.id,
        method: started.method,
        contentLanguage,
        status: 'PENDING' as const,
        sms: started.sms,
        flashCall: started.flashCall,
        callout: started.callout,
        seamless: started.seamless,
        whatsapp: started.whatsapp,
        resumed: false,
      });
    },

    /** A wrong code answers status FAIL (reason "Invalid code") and leaves the verification PENDING. */
    async reportCode(input: ReportCodeInput): Promise<ReportResult> {
      return verification.reportById(input.verificationId, reportFor(input.method, input.code));
    },

    /** The send's verification if an earlier try started it (the look-up of startVerification, without a start). */
    async findVerification(input: FindVerificationInput): Promise<{ found?: StartVerificationOutput }> {
      const found = await sendOf(verification, input);
      return found ? { found } : {};
    },

    async getVerificationStatus(input: GetVerificationStatusInput): Promise<VerificationStatus> {
      return verification.statusById(input.verificationId);
    },

    /** Only reads: a second run (the worker died before its task completed) reads the same rows. */
    async smsReceipts({ processId }: SmsReceiptsInput) {
      return { receipts: receipts ? await receipts.pending(processId) : [] };
    },
  });
}

/** Outside an activity (unit tests) the attempt is unknown: look up, to be safe. */
function isFirstAttempt(): boolean {
  try {
    return Context.current().info.attempt === 1;
  } catch {
    return false;
  }
}

/** The platform verification this send started, found by its reference, resumed; a conflicting one is refused. */
async function sendOf(client: PlatformClients['verification'], input: FindVerificationInput): Promise<StartVerificationOutput | undefined> {
  const reference = input.reference ?? input.token;
  const found = await findByReference(client, reference);
  // The caller's reference is shared by every send of the process (and maybe other processes): only
  // the verification carrying this send's token is this send's. The token as reference is unique.
  const existing = found && (input.reference === undefined || found.custom === input.token) ? found : undefined;
  if (!existing) return undefined;
  if (existing.method !== input.method || (existing.identity.endpoint !== '' && existing.identity.endpoint !== input.identity)) {
    // Never resume someone else's verification; the number stays out of the message (it is logged).
    throw ApplicationFailure.create({
      type: VERIFICATION_FAILURE_TYPES.referenceConflict,
      message: `verification reference ${reference} belongs to a different verification (${existing.id})`,
      nonRetryable: true,
    });
  }
  return compact({
    verificationId: existing.id,
    method: existing.method,
    contentLanguage: existing.language,
    status: existing.status,
    reason: existing.reason,
    resumed: true,
  });
}

async function findByReference(client: PlatformClients['verification'], reference: string): Promise<VerificationStatus | undefined> {
  try {
    return await client.statusByReference(reference);
  } catch (err) {
    if (err instanceof PlatformNotFoundError) return undefined;
    throw err;
  }
}

/** The report body for a method: `sms.code`, `callout.code`, `whatsapp.code` or `flashCall.cli`. */
function reportFor(method: ReportableVerificationMethod, code: string): VerificationReport {
  switch (method) {
    case 'sms':
      return { method: 'sms', sms: { code } };
    case 'callout':
      return { method: 'callout', callout: { code } };
    case 'flashcall':
      return { method: 'flashcall', flashCall: { cli: code } };
    case 'whatsapp':
      return { method: 'whatsapp', whatsapp: { code } };
    default:
      // seamless (or anything else arriving untyped): there is nothing to report.
      throw ApplicationFailure.create({
        type: VERIFICATION_FAILURE_TYPES.notReportable,
        message: `verification method ${String(method)} takes no code report`,
        nonRetryable: true,
      });
  }
}

function smsOptions({ expiryMs, codeType, codeLength, locale }: NonNullable<StartVerificationInput['sms']>): StartVerificationRequest['sms'] {
  return compact({ expiry: expiryMs === undefined ? undefined : hhmmss(expiryMs), codeType, codeLength, locale });
}

/** The platform's duration format, whole seconds (at least one). */
function hhmmss(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

function compact<T extends object>(o: T): T {
  for (const key of Object.keys(o) as Array<keyof T>) {
    if (o[key] === undefined) delete o[key];
  }
  return o;
}
