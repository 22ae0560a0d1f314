// relayflow's own check of a registration against its policy, before anything is sent: the platform's
// rules of docs/senderid-wire.md "Policy requirements", giving the same `field` + `rule` the platform
// would, all at once, in the policy's field order, per requestDetails entry. Pure: usable anywhere.
import type { SenderIdViolation } from './errors.js';
import type { AttachmentDefinition, FieldSection, MarketVersion, Policy, PolicyField, SpecialCondition } from '../../common/wire/senderid.js';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const SECTIONS: readonly FieldSection[] = ['senderIdDetails', 'additionalDetails'];

function checkValue(out: SenderIdViolation[], path: string, field: PolicyField, value: unknown): void {
  if (value === undefined || value === null || value === '') {
    if (field.required) out.push({ field: path, rule: 'required', description: `${field.label} is required` });
    return;
  }
  if (typeof value !== 'string') {
    out.push({ field: path, rule: 'type', description: `${field.label} must be a string` });
    return;
  }
  for (const v of field.validations) {
    const ok =
      v.rule === 'pattern'
        ? new RegExp(String(v.value)).test(value)
        : v.rule === 'minLength'
          ? value.length >= Number(v.value)
          : v.rule === 'maxLength'
            ? value.length <= Number(v.value)
            : Array.isArray(v.value) && v.value.includes(value);
    if (!ok) out.push({ field: path, rule: v.rule, description: `${field.label}: ${v.message}` });
  }
}

/** Every violation of `requestDetails` against the policy; [] when the platform would accept them. */
export function validateRequestDetails(policy: Policy, requestDetails: unknown): SenderIdViolation[] {
  const out: SenderIdViolation[] = [];
  if (!Array.isArray(requestDetails) || requestDetails.length === 0) {
    out.push({ field: 'requestDetails', rule: requestDetails === undefined ? 'required' : 'type', description: 'requestDetails must be a non-empty array' });
    return out;
  }
  requestDetails.forEach((entry: unknown, i) => {
    const base = `requestDetails[${i}]`;
    if (!isObj(entry)) {
      out.push({ field: base, rule: 'type', description: 'must be an object' });
      return;
    }
    for (const key of Object.keys(entry)) {
      if (!(SECTIONS as readonly string[]).includes(key))
        out.push({ field: `${base}.${key}`, rule: 'unknownField', description: `${key} is not a known field` });
    }
    for (const name of SECTIONS) {
      const raw = entry[name];
      let values: Record<string, unknown>;
      if (raw === undefined) values = {};
      else if (!Array.isArray(raw) || !raw.every(isObj)) {
        out.push({ field: `${base}.${name}`, rule: 'type', description: 'must be an array of objects' });
        continue;
      } else values = Object.assign({}, ...raw) as Record<string, unknown>;
      if (name === 'senderIdDetails' && policy.senderIdAssigned) {
        for (const key of Object.keys(values))
          out.push({ field: `${base}.${name}.${key}`, rule: 'notAllowed', description: 'the platform assigns the sender ID for this policy' });
        continue;
      }
      const fields = policy.fields.filter((f) => f.section === name);
      for (const f of fields) checkValue(out, `${base}.${name}.${f.key}`, f, values[f.key]);
      for (const key of Object.keys(values)) {
        if (!fields.some((f) => f.key === key))
          out.push({ field: `${base}.${name}.${key}`, rule: 'unknownField', description: `${key} is not a field of policy ${policy.id}` });
      }
    }
  });
  return out;
}

/** The size and MIME checks of an upload against its definition, as the platform makes them. */
export function validateAttachment(def: AttachmentDefinition, file: { mimeType: string; sizeBytes: number }): SenderIdViolation[] {
  const out: SenderIdViolation[] = [];
  if (!def.acceptedMimeTypes.includes(file.mimeType)) {
    out.push({ field: 'file.mimeType', rule: 'mimeType', description: `mimeType must be one of ${def.acceptedMimeTypes.join(', ')}` });
  }
  if (file.sizeBytes <= 0) out.push({ field: 'file.content', rule: 'required', description: 'the file is empty' });
  else if (file.sizeBytes > def.maxSizeBytes) {
    out.push({ field: 'file.content', rule: 'maxSize', description: `the file has ${file.sizeBytes} bytes; at most ${def.maxSizeBytes} are accepted` });
  }
  return out;
}

/**
 * The policy (scope) the caller's answers lead to: walks `specialConditions` answer by answer down to a
 * `policyId`. Undefined when an answer matches no branch or the answers stop before a leaf.
 */
export function policyIdForAnswers(market: MarketVersion, answers: readonly string[]): string | undefined {
  let branches: SpecialCondition[] = market.specialConditions.chainedSpecialConditions;
  for (const answer of answers) {
    const next = branches.find((b) => b.answer.toLowerCase() === answer.toLowerCase());
    if (!next) return undefined;
    if (next.policyId !== undefined && next.chainedSpecialConditions.length === 0) return next.policyId;
    branches = next.chainedSpecialConditions;
  }
  return undefined;
}

/** The single policy of a market with only one branch (long numbers, short codes), else undefined. */
export function onlyPolicyId(market: MarketVersion): string | undefined {
  const leaves: string[] = [];
  const walk = (bs: SpecialCondition[]) => {
    for (const b of bs) {
      if (b.policyId !== undefined) leaves.push(b.policyId);
      walk(b.chainedSpecialConditions);
    }
  };
  walk(market.specialConditions.chainedSpecialConditions);
  const unique = [...new Set(leaves)];
  return unique.length === 1 ? unique[0] : undefined;
}
