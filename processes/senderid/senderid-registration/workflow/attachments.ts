// A sender ID registration's attachments as the process sees them (the policy's definitions, merged with the
// uploads the platform and the caller report), what the customer still has to supply, and the round of sending a
// PENDING_ATTACHMENTS registration back to review once every mandatory upload is COMPLETED.
import type { SenderIdRegistration as Registration } from '../activity-contract.js';
import type { Attachment, RegistrationState, SenderIdProcessState, SenderIdRegistrationDetails } from '../contract.js';

const WAITING_FOR_CUSTOMER: readonly RegistrationState[] = ['PENDING', 'PENDING_ATTACHMENTS', 'ON_HOLD'];

export class Attachments {
  private resubmitDue = false;
  /** Sent back to review in this PENDING_ATTACHMENTS round already (the platform moves on a little later). */
  private resubmittedInRound = false;

  /** `details.attachments` is the list (the status query shows it); the policy pre-check replaces it. */
  constructor(private readonly details: SenderIdRegistrationDetails) {}

  get uploadWaiting(): boolean {
    return this.details.attachments.some((a) => a.uploadStatus === 'WAITING');
  }

  /** The policy's definitions, none uploaded yet. */
  definedBy(definitions: { id: string; mandatory: boolean }[]): void {
    this.details.attachments = definitions.map((a) => ({ attachmentDefinitionId: a.id, mandatory: a.mandatory }));
  }

  /** An adopted registration's policy says which of them are mandatory. */
  requireAsIn(definitions: { id: string; mandatory: boolean }[]): void {
    for (const def of definitions) {
      const view = this.details.attachments.find((a) => a.attachmentDefinitionId === def.id);
      if (view) view.mandatory = def.mandatory;
      else this.details.attachments.push({ attachmentDefinitionId: def.id, mandatory: def.mandatory });
    }
  }

  merge(list: Attachment[]): void {
    for (const a of list) {
      const view = this.details.attachments.find((x) => x.attachmentDefinitionId === a.attachmentDefinitionId);
      const { attachmentDefinitionId, attachmentId, fileName, mimeType, uploadStatus } = a;
      const fresh = { attachmentDefinitionId, attachmentId, fileName, mimeType, uploadStatus };
      if (view) Object.assign(view, fresh);
      else this.details.attachments.push(fresh);
    }
  }

  /** The caller uploaded one (merged already): a new round, due at once in PENDING_ATTACHMENTS. */
  uploaded(state: SenderIdProcessState): void {
    this.resubmittedInRound = false;
    if (state === 'PENDING_ATTACHMENTS') this.resubmitDue = true;
  }

  /** The registration left PENDING_ATTACHMENTS: a later return to it is a new round. */
  newRound(): void {
    this.resubmittedInRound = false;
  }

  /** In PENDING_ATTACHMENTS, a read showing every mandatory upload COMPLETED makes the resubmission due. */
  noteComplete(state: SenderIdProcessState): void {
    const mandatory = this.details.attachments.filter((a) => a.mandatory);
    if (state === 'PENDING_ATTACHMENTS' && mandatory.some((a) => a.uploadStatus === 'COMPLETED'))
      this.resubmitDue ||= !mandatory.some((a) => a.uploadStatus !== 'COMPLETED');
  }

  /** Whether to send a PENDING_ATTACHMENTS registration back to review now: due, once a round, no upload WAITING, all mandatory ones COMPLETED. */
  takeResubmission(state: SenderIdProcessState): boolean {
    if (!this.resubmitDue || this.resubmittedInRound || state !== 'PENDING_ATTACHMENTS' || !this.details.registrationId) return false;
    if (this.uploadWaiting) return false;
    this.resubmitDue = false;
    if (this.details.attachments.some((a) => a.mandatory && a.uploadStatus !== 'COMPLETED')) return false;
    this.resubmittedInRound = true;
    return true;
  }

  /** While the registration waits for the customer: the mandatory uploads not COMPLETED, and the platform's last word. */
  missing(r: Registration): string[] {
    if (!WAITING_FOR_CUSTOMER.includes(r.status)) return [];
    const out: string[] = [];
    if (r.status === 'PENDING_ATTACHMENTS') {
      for (const a of this.details.attachments) {
        if (a.mandatory && a.uploadStatus !== 'COMPLETED')
          out.push(`attachment ${a.attachmentDefinitionId}${a.uploadStatus ? ` (upload ${a.uploadStatus})` : ''}`);
      }
    }
    const log = [...(r.logs ?? [])].reverse().find((l) => l.registrationState === r.status);
    if (log) out.push(log.message);
    return out;
  }
}
