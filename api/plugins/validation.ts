// Request validation: bodies are never coerced or stripped (a wrong type or unknown field is an error);
// query strings and path parameters are coerced, since they arrive as text.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const base = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;
const strictAjv = addFormats(new Ajv({ ...base, coerceTypes: false }));
const coercingAjv = addFormats(new Ajv({ ...base, coerceTypes: 'array' }));

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema as object);

export function installValidation(app: FastifyInstance): void {
  app.setValidatorCompiler(validatorCompiler);
}

const PART: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** One detail per broken rule, naming the field as the caller wrote it (body.displayName, query.pageSize). */
export function validationDetails(errors: ErrorObject[], context: string): ErrorDetail[] {
  const prefix = PART[context] ?? context;
  return errors.map((e) => {
    const path = e.instancePath.split('/').filter(Boolean).join('.');
    const params = e.params as Record<string, unknown>;
    const leaf = (params.missingProperty ?? params.additionalProperty) as string | undefined;
    const field = [prefix, path, leaf].filter(Boolean).join('.');
    const rule = e.keyword === 'additionalProperties' ? 'unknown_field' : e.keyword === 'required' ? 'required' : e.keyword;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') message = 'is not a known field';
    if (e.keyword === 'required') message = 'is required';
    if (e.keyword === 'enum') message = `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    return { field, rule, message };
  });
}
