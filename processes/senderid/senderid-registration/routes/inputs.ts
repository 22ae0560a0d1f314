// The registration process a start request builds, with the policy's rules as errors naming `<prefix>.<field>`:
// shared by POST /v1/senderid/registrations and the onboarding's senderIds items. The policy is read first
// and passed in (undefined: the platform does not know it).
import type { Static } from 'typebox';
import type { Config } from '../../../../common/config.js';
import { SENDERID_CALLBACK_PATH } from '../../../../contracts/callbacks.js';
import { workflowIds } from '../../../kinds.js';
import type { SenderIdRegistrationInput } from '../contract.js';
import type { Policy } from '../../../../common/wire/senderid.js';
import { validateRequestDetails } from '../../../../platform/senderid/client.js';
import type { ErrorDetail } from '../../../../api/errors.js';
import type { BuiltProcess } from '../../../../api/processes/start.js';
import type { StartRegistration } from './schemas.js';

/** The platform's violations (`requestDetails[0]...`) as details naming the request's fields. */
export const fromViolations = (vs: { field: string; rule: string; description: string }[], prefix = 'body.') =>
  vs.map((v) => ({ field: `${prefix}${v.field}`, rule: v.rule, message: v.description }));

/** Keys starting with reg- name adopted registrations (senderIdAdoptedKey). */
export const reservedKeyErrors = (key: string, field: string): ErrorDetail[] =>
  key.startsWith('reg-') ? [{ field, rule: 'reserved', message: 'keys starting with reg- name adopted registrations' }] : [];

export const unknownPolicy = (field: string, policyId: string): ErrorDetail => ({ field, rule: 'notFound', message: `policy ${policyId} does not exist` });

export interface RegistrationContext {
  projectId: string;
  config: Pick<Config, 'processes' | 'api'>;
  policy: Policy | undefined;
}

export function registrationInput(
  b: Static<typeof StartRegistration>,
  prefix: string,
  ctx: RegistrationContext,
): BuiltProcess<SenderIdRegistrationInput, 'senderid-registration'> {
  const { policy, config } = ctx;
  const errors = reservedKeyErrors(b.key, `${prefix}.key`);
  if (!policy) errors.push(unknownPolicy(`${prefix}.policyId`, b.policyId));
  else {
    if (b.marketCode && b.marketCode !== policy.marketCode)
      errors.push({ field: `${prefix}.marketCode`, rule: 'policy', message: `policy ${policy.id} is for market ${policy.marketCode}` });
    if (b.registrationType && b.registrationType !== policy.registrationType)
      errors.push({ field: `${prefix}.registrationType`, rule: 'policy', message: `policy ${policy.id} is for ${policy.registrationType}` });
    errors.push(...fromViolations(validateRequestDetails(policy, b.requestDetails), `${prefix}.`));
  }
  const settings = config.processes.senderid;
  const input: SenderIdRegistrationInput = {
    projectId: ctx.projectId,
    key: b.key,
    // Without a policy the errors are not empty and this input is never started.
    create: {
      policyId: policy?.id ?? b.policyId,
      marketCode: policy?.marketCode ?? b.marketCode ?? '',
      registrationType: policy?.registrationType ?? b.registrationType ?? 'ALPHANUMERIC_SENDER_ID',
      requestDetails: b.requestDetails,
      ...(b.notificationContacts ? { notificationContacts: b.notificationContacts } : {}),
      ...(b.tags ? { tags: b.tags } : {}),
      ...(config.api.publicUrlExplicit ? { callbackUrl: `${config.api.publicUrl}${SENDERID_CALLBACK_PATH}` } : {}),
    },
    pollIntervalMs: settings.pollIntervalMs,
    overdueGraceMs: b.overdueGraceSeconds !== undefined ? b.overdueGraceSeconds * 1000 : settings.overdueGraceMs,
  };
  return {
    errors,
    processId: workflowIds['senderid-registration'](ctx.projectId, b.key),
    kind: 'senderid-registration',
    input,
  };
}
