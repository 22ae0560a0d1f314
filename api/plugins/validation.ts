// Request validation: bodies are never coerced or stripped (a wrong type or unknown field is an error);
// query strings and path parameters are coerced, since they arrive as text.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance, FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { urlProblem } from '../../common/url-guard.js';
import type { ErrorDetail } from '../errors.js';
import fp from 'fastify-plugin';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const base = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;

/**
 * Formats of our own, so the schema (and with it the OpenAPI document) says everything a value must be and
 * a bad one is a 400 from validation, naming the field, before any handler runs.
 * - e164: a phone number libphonenumber calls valid, in international format. A pattern cannot say this:
 *   a number can have the right shape and still not exist.
 * - page-token: the shape of a nextPageToken (base64url); whether this API gave it out is checked when
 *   the list runs (api/processes/find.ts), which holds the key.
 * - webhook-url: where relayflow may POST (an event subscription): absolute http(s), no credentials, no fragment.
 *   Whether its host is public is a lookup, answered 422 by the route.
 */
const FORMATS = {
  e164: (v: string) => v.startsWith('+') && !!parsePhoneNumberFromString(v)?.isValid(),
  'page-token': (v: string) => /^[A-Za-z0-9_-]*$/.test(v),
  'webhook-url': (v: string) => urlProblem(v) === undefined,
} as const;
const FORMAT_MESSAGES: Record<string, string> = {
  e164: 'must be a valid phone number in international format (+ and country code)',
  'page-token': 'is not a token this API gave out: pass the nextPageToken of the previous page as it is',
  'webhook-url': 'must be an absolute http or https URL, without a user name, password or fragment',
};

const withFormats = (ajv: Ajv) => {
  addFormats(ajv);
  for (const [name, validate] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
};
const strictAjv = withFormats(new Ajv({ ...base, coerceTypes: false }));
const coercingAjv = withFormats(new Ajv({ ...base, coerceTypes: 'array' }));

/**
 * Compiled once per schema's content in a process: Ajv caches by object identity, and routes build their schemas
 * when registered, so each app built again (tests build dozens a process) compiled every route again.
 */
function byContent<F>(compile: (schema: object) => F): (schema: object, part?: string) => F {
  const compiled = new Map<string, F>();
  return (schema, part = '') => {
    const key = `${part} ${JSON.stringify(schema)}`;
    let fn = compiled.get(key);
    if (!fn) compiled.set(key, (fn = compile(schema)));
    return fn;
  };
}
const strictValidator = byContent((schema) => strictAjv.compile(schema));
const coercingValidator = byContent((schema) => coercingAjv.compile(schema));
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strictValidator : coercingValidator)(schema as object);

// Fastify's own serializer (fast-json-stringify), with no shared schemas ($ref) to resolve: none are added.
const fastJson = SerializerSelector()({}, {});
const serializer = byContent((schema) => fastJson({ schema, method: '', url: '', httpStatus: '' }));
const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => serializer(schema as object);

export const validationPlugin = fp(
  async (app: FastifyInstance) => {
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
  },
  { name: 'relayflow-validation' },
);

const PART: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** One detail per broken rule, naming the field as the caller wrote it (body.displayName, query.pageSize). */
export function validationDetails(errors: ErrorObject[], context: string): ErrorDetail[] {
  const prefix = PART[context] ?? context;
  return errors.map((e) => {
    const path = e.instancePath.split('/').filter(Boolean).join('.');
    const params = e.params as Record<string, unknown>;
    const leaf = (params.missingProperty ?? params.additionalProperty) as string | undefined;
    const field = [prefix, path, leaf].filter(Boolean).join('.');
    // Our own formats are rules of their own (`e164`), as callers know them from the messages.
    const ownFormat = e.keyword === 'format' && (params.format as string) in FORMATS ? (params.format as string) : undefined;
    const rule = e.keyword === 'additionalProperties' ? 'unknown_field' : e.keyword === 'required' ? 'required' : (ownFormat ?? e.keyword);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') message = 'is not a known field';
    if (e.keyword === 'required') message = 'is required';
    if (e.keyword === 'enum') message = `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    if (e.keyword === 'format') message = FORMAT_MESSAGES[params.format as string] ?? message;
    return { field, rule, message };
  });
}
