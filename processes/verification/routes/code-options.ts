// A start's code options: the alphabet (the platform's codeType) and the length of the code the platform
// generates for the sms and whatsapp steps. The schema states the ranges (400); which methods take them is a rule
// between fields (422). Sources: docs/verification-wire.md.
import Type from 'typebox';
import { CODE_LENGTH, CODE_OPTION_METHODS, SMS_CODE_TYPES } from '../../../common/wire/verification.js';
import { unprocessable } from '../../../api/errors.js';

export const CodeOptions = Type.Object(
  {
    type: Type.Optional(
      Type.Union(
        SMS_CODE_TYPES.map((t) => Type.Literal(t)),
        { description: "The code's alphabet: Numeric (digits), Alpha (letters) or Alphanumeric; default Numeric" },
      ),
    ),
    length: Type.Optional(
      Type.Integer({ minimum: CODE_LENGTH.min, maximum: CODE_LENGTH.max, description: "Characters in the code; default the platform's for the type" }),
    ),
  },
  { additionalProperties: false, description: 'For the sms and whatsapp steps; the other methods have no code options' },
);

const TAKES_CODE: ReadonlySet<string> = new Set(CODE_OPTION_METHODS);

/** 422 when no step of the chain takes code options: they would change nothing. */
export function checkCodeOptions(steps: readonly { method: string }[]): void {
  if (steps.some((s) => TAKES_CODE.has(s.method))) return;
  throw unprocessable('body.code', 'method', `code options apply to ${CODE_OPTION_METHODS.join(' and ')} steps, and no step is one`);
}
