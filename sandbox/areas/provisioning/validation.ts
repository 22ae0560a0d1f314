// Hand-written body checks for the provisioning area: every broken field becomes one
// validationErrors entry (enum errors list the valid values), all reported in one 400 invalid_input.
import { Fields } from '../../core/fields.js';
import { invalidInput } from './errors.js';

export const E164 = /^\+[1-9]\d{6,14}$/;
export const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export const COUNTRY = /^[A-Z]{2}$/;

/** A validator whose 400 is the contract's invalid_input. */
export const fields = () => new Fields({ refuse: (v) => invalidInput(v) });
