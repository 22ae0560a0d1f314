// Turns schema-validation errors (TypeBox through Fastify) into field violations that name the field.
import type { FastifySchemaValidationError } from 'fastify';
import { AreaError, type FieldViolation } from './errors.js';

function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.join('.');
}

function names(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? [value] : [];
}

/** One violation per offending field; `part` (body, querystring, ...) names the whole value when it is the problem. */
export function violationsFrom(errors: readonly FastifySchemaValidationError[], part = 'body'): FieldViolation[] {
  const out: FieldViolation[] = [];
  const seen = new Set<string>();
  const add = (field: string, description: string) => {
    const key = `${field}\u0000${description}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field: field || part, description });
    }
  };
  for (const e of errors) {
    const params = (e.params ?? {}) as Record<string, unknown>;
    if (e.keyword === 'required') {
      for (const n of names(params.requiredProperties ?? params.missingProperty)) add(fieldPath(e.instancePath, n), 'is required');
    } else if (e.keyword === 'additionalProperties') {
      for (const n of names(params.additionalProperties ?? params.additionalProperty)) add(fieldPath(e.instancePath, n), 'is unknown');
    } else if (e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties')) {
      // TypeBox reports an unknown property twice; the additionalProperties entry above covers it.
      continue;
    } else {
      add(fieldPath(e.instancePath), e.message ?? `fails ${e.keyword}`);
    }
  }
  return out;
}

export function validationMessage(violations: readonly FieldViolation[], part = 'body'): string {
  const what = part === 'querystring' ? 'query parameter' : part === 'params' ? 'path parameter' : 'field';
  return `Invalid request: ${violations.map((v) => `${what} '${v.field}' ${v.description}`).join('; ')}`;
}

/** A 400 naming each field, for handlers that validate by hand (same shape as schema failures). */
export function invalidArgument(violations: FieldViolation[], part = 'body'): AreaError {
  return new AreaError(400, validationMessage(violations, part), { details: violations });
}
