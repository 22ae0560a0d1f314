// The environment checked against a schema by env-schema (what @fastify/env wraps), with every problem turned into
// a rule in words naming its variable.
import { isIP } from 'node:net';
import { Ajv, type ErrorObject } from 'ajv';
import envSchema from 'env-schema';
import Type, { type Static, type TObject } from 'typebox';
import { ConfigError, type ConfigProblem, type Env } from './errors.js';
import { NOTE_KEYWORDS } from './fields.js';

/** The formats the schema uses beyond JSON schema's own: what a value must be, in the docs and in an error. */
export const FORMATS: Record<string, { says: string; validate: (v: string) => boolean; rule: (v: string) => string }> = {
  'http-url': {
    says: 'an absolute http(s) URL',
    validate: (v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol),
    rule: (v) => (URL.canParse(v) ? `must use http or https (got "${new URL(v).protocol}")` : `must be an absolute http(s) URL (got "${v}")`),
  },
  ip: {
    says: 'an IP address',
    validate: (v) => isIP(v) !== 0,
    rule: (v) => `must be an IP address such as 127.0.0.1 or 0.0.0.0 (got "${v}")`,
  },
  'date-time': {
    says: 'an ISO 8601 date and time',
    validate: (v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)),
    rule: (v) => `must be an ISO 8601 date and time, e.g. 2026-05-01T12:00:00Z (got "${v}")`,
  },
  'base64-16': {
    says: 'base64 of at least 16 bytes',
    validate: (v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length >= 16,
    rule: () => 'must be base64 of at least 16 bytes',
  },
};

// env-schema's own options (coercion from strings, defaults filled in, every error at once) and the schema's
// notes and formats. One instance, so each schema is compiled once.
const ajv = new Ajv({ allErrors: true, removeAdditional: true, useDefaults: true, coerceTypes: true, allowUnionTypes: true, addUsedSchema: false });
for (const keyword of NOTE_KEYWORDS) ajv.addKeyword({ keyword, schemaType: ['string', 'boolean'] });
for (const [name, { validate }] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate });

/** A variable's schema as the checks and the docs read it. */
export interface Field {
  type?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: readonly string[];
  format?: string;
  pattern?: string;
  'x-rule'?: string;
  'x-default'?: string;
  'x-secret'?: boolean;
  'x-unit'?: string;
}

export const fieldOf = (schema: TObject, variable: string) => (schema.properties[variable] ?? {}) as Field;

/** What a variable's value must be, in words, for an error message: its own rule, else its schema's. */
function ruleOf(field: Field, keyword: string): string {
  if (field['x-rule']) return field['x-rule'];
  if (keyword === 'format' && field.format) return `must be ${FORMATS[field.format]?.says ?? field.format}`;
  if (field.enum) return `must be one of ${field.enum.join(', ')}`;
  if (field.type === 'integer' || field.type === 'number') {
    const what = field.type === 'integer' ? 'a whole number' : 'a number';
    return keyword === 'type' ? `must be ${what}` : `must be between ${field.minimum} and ${field.maximum}`;
  }
  if (field.minLength !== undefined || field.maxLength !== undefined)
    return `must be ${field.minLength ?? 0} to ${field.maxLength ?? 'any number of'} characters`;
  if (field.pattern) return `must match ${field.pattern}`;
  return `must be a ${field.type ?? 'value'} (${keyword})`;
}

function problemOf(schema: TObject, data: Record<string, string>, error: ErrorObject): ConfigProblem {
  if (error.keyword === 'required') return { variable: String(error.params.missingProperty), rule: 'is required' };
  const variable = error.instancePath.split('/')[1] ?? '';
  const field = fieldOf(schema, variable);
  const raw = data[variable] ?? '';
  // A format says what was wrong with the value, quoting it: never for a secret.
  if (error.keyword === 'format' && field.format && !field['x-rule'] && !field['x-secret']) {
    const rule = FORMATS[field.format]?.rule(raw);
    if (rule) return { variable, rule };
  }
  return { variable, rule: field['x-secret'] ? ruleOf(field, error.keyword) : `${ruleOf(field, error.keyword)} (got "${raw}")` };
}

/** The schema with nothing required: what the rules read while the failed variables are left out. */
const lenient = new WeakMap<TObject, TObject>();
function lenientOf(schema: TObject): TObject {
  let partial = lenient.get(schema);
  if (!partial) lenient.set(schema, (partial = Type.Partial(schema)));
  return partial;
}

const validate = (schema: TObject, data: Record<string, string>) => envSchema({ schema: schema as unknown as Record<string, unknown>, data, env: false, ajv });

/**
 * The schema's variables from `env`, trimmed (a blank one counts as unset), coerced and defaulted, and the problems
 * found, one per variable. With problems, the values are those of the environment without its bad variables (their
 * defaults, or nothing): enough for the rules that do not read them.
 */
export function validateEnv<S extends TObject>(schema: S, env: Env): { vars: Static<S>; problems: ConfigProblem[] } {
  const data: Record<string, string> = {};
  for (const name of Object.keys(schema.properties)) {
    const value = env[name]?.trim();
    if (value) data[name] = value;
  }
  try {
    return { vars: validate(schema, data) as Static<S>, problems: [] };
  } catch (err) {
    const errors = (err as { errors?: ErrorObject[] }).errors;
    if (!errors) throw err;
    const problems: ConfigProblem[] = [];
    for (const e of errors) {
      const p = problemOf(schema, data, e);
      if (!problems.some((q) => q.variable === p.variable)) problems.push(p);
    }
    const rest = Object.fromEntries(Object.entries(data).filter(([name]) => !problems.some((p) => p.variable === name)));
    return { vars: validate(lenientOf(schema), rest) as Static<S>, problems };
  }
}

/** validateEnv for a schema read on its own (no rules after it): its values, or a ConfigError naming every problem. */
export function checkEnv<S extends TObject>(schema: S, env: Env): Static<S> {
  const { vars, problems } = validateEnv(schema, env);
  const [first, ...others] = problems;
  if (first) throw new ConfigError(first.variable, first.rule, others);
  return vars;
}

const wholeNumbers = new Map<string, TObject>();

/** A whole number between min and max, or undefined when the variable is unset (the standalone sandbox reads its own this way). */
export function wholeNumber(env: Env, name: string, min: number, max: number): number | undefined {
  const key = `${name} ${min} ${max}`;
  let schema = wholeNumbers.get(key);
  if (!schema) wholeNumbers.set(key, (schema = Type.Object({ [name]: Type.Optional(Type.Integer({ minimum: min, maximum: max })) })));
  return checkEnv(schema, env)[name] as number | undefined;
}
