// Reading sender ID error answers. errors.ts parses `{error: {code, message, status, details}}` (the OAuth
// family) into a PlatformError with `code` = status (INVALID_ARGUMENT, NOT_FOUND, ...) and `details` = the
// details array; a validation 400 carries one `{field, rule, description}` per broken item
// (docs/senderid-wire.md "Base, auth, errors"). These helpers give that a type.
import { PlatformError } from '../errors.js';

type SenderIdViolationRule =
  'required' | 'pattern' | 'minLength' | 'maxLength' | 'enum' | 'unknownField' | 'notAllowed' | 'mimeType' | 'maxSize' | 'type' | 'range';

/** One broken item: `field` is a dotted path into the request (`requestDetails[0].senderIdDetails.senderId`). */
export interface SenderIdViolation {
  field: string;
  rule: SenderIdViolationRule | (string & {});
  description: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The violations of a sender ID PlatformError (a 400); [] for anything else. */
export function senderIdViolations(err: unknown): SenderIdViolation[] {
  if (!(err instanceof PlatformError) || err.area !== 'senderid' || !Array.isArray(err.details)) return [];
  return err.details
    .filter(isObj)
    .filter((d) => typeof d.field === 'string')
    .map((d) => ({ field: d.field as string, rule: String(d.rule ?? ''), description: String(d.description ?? '') }));
}
