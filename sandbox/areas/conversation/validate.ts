// Hand-written request checks that collect every broken field, then answer one 400 naming them all
// in `details: [{field, description}]` (docs/conversation-wire.md "Base, auth, errors").
import { AreaError } from '../../core/errors.js';
import { Fields } from '../../core/fields.js';
import { invalidArgument } from '../../core/validation.js';

/** A validator whose 400 is INVALID_ARGUMENT naming each field of `part` (the same shape as schema failures). */
export const fields = (part: 'body' | 'querystring' | 'params' = 'body') => new Fields({ refuse: (v) => invalidArgument(v, part), wording: 'conversation' });

export const notFound = (message: string) => new AreaError(404, message);
