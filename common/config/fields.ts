// The kinds of variable the configuration schema is made of. Each is a JSON schema (TypeBox) with a one-line
// description; the x- keywords are notes for people (docs/configuration.md, error messages), not for validation.
import Type from 'typebox';

/** Notes the validator ignores: a rule said in words, a default that depends on other variables, a secret, a unit. */
export const NOTE_KEYWORDS = ['x-rule', 'x-default', 'x-secret', 'x-unit'] as const;

interface Notes {
  /** How the rule reads in an error and in the docs, where the schema's own words would not help. */
  'x-rule'?: string;
  /** The default in words, where it is computed from other variables (then the schema has none). */
  'x-default'?: string;
  /** Never echoed in an error message. */
  'x-secret'?: true;
}

/** A whole number from min to max. */
export const whole = (fallback: number, min: number, max: number, description: string) =>
  Type.Integer({ default: fallback, minimum: min, maximum: max, description });

/** A duration in milliseconds, from min to max. */
export const millis = (fallback: number, min: number, max: number, description: string) =>
  Type.Integer({ default: fallback, minimum: min, maximum: max, description, 'x-unit': 'ms' });

/** A duration in milliseconds whose default is computed (x-default says how). */
export const millisComputed = (min: number, max: number, description: string, notes: Notes) =>
  Type.Optional(Type.Integer({ minimum: min, maximum: max, description, 'x-unit': 'ms', ...notes }));

/** Free text with a default. */
export const text = (fallback: string, description: string) => Type.String({ default: fallback, description });

/** Free text that may be unset. */
export const optionalText = (description: string, notes: Notes & { minLength?: number; maxLength?: number; pattern?: string } = {}) =>
  Type.Optional(Type.String({ description, ...notes }));

/** A secret (never echoed), of minLength to maxLength characters, that may be unset. */
export const secret = (description: string, minLength: number, maxLength: number, notes: Notes & { pattern?: string } = {}) =>
  Type.Optional(Type.String({ description, minLength, maxLength, 'x-secret': true, ...notes }));

/** One of a fixed set of words. */
export const oneOf = <const V extends string[]>(values: readonly [...V], fallback: V[number], description: string, notes: Notes = {}) =>
  Type.Enum(values, { default: fallback, description, ...notes });

/** An absolute http(s) URL (validate.ts FORMATS), with or without a default. */
export const httpUrl = (description: string, fallback?: string) => Type.String({ format: 'http-url', description, ...(fallback ? { default: fallback } : {}) });

/** An absolute http(s) URL that may be unset. */
export const optionalHttpUrl = (description: string, notes: Notes = {}) => Type.Optional(Type.String({ format: 'http-url', description, ...notes }));
