// The one error body every API error uses, and the errors routes throw to produce it.
import Type, { type Static } from 'typebox';

export const ErrorDetail = Type.Object({
  field: Type.String({ description: 'Where the problem is, e.g. body.displayName' }),
  rule: Type.String({ description: 'The rule it broke, e.g. required, maxLength, enum' }),
  message: Type.String(),
});

export const ErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String({ description: 'validation_failed, unauthorized, not_found, conflict, unavailable, internal, ...' }),
    message: Type.String(),
    details: Type.Optional(Type.Array(ErrorDetail)),
  }),
  requestId: Type.String(),
});
export type ErrorBody = Static<typeof ErrorBody>;
export type ErrorDetail = Static<typeof ErrorDetail>;

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    /** Sent as Retry-After (rounded up to seconds) on 429 and 503. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} was not found`);
export const badRequest = (field: string, rule: string, message: string) =>
  new ApiError(400, 'validation_failed', `${field}: ${message}`, [{ field, rule, message }]);
/** A request the OpenAPI document allows that a rule between its fields refuses (400 is for what the document states). */
export const unprocessable = (field: string, rule: string, message: string) =>
  new ApiError(422, 'validation_failed', `${field}: ${message}`, [{ field, rule, message }]);

/**
 * A request the schema accepts that breaks rules between its fields or rules the platform sets (a policy, a
 * banner's size, the CHATB categories): 422, naming each field. 400 stays for what the OpenAPI document says.
 */
export const invalid = (details: ErrorDetail[]) => new ApiError(422, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);

/** Response schemas for the errors a route can answer with, for the OpenAPI document. */
/**
 * The store, or the 503 of an API started without one (api/main.ts opens it only with RELAYFLOW_DATABASE_URL):
 * `code` names what is unavailable, `needs` says why in words, `by` who must be given the database.
 */
export const storeRequired =
  <T>(store: T | undefined, code: string, needs: string, by = 'the API and the workers') =>
  (): T => {
    if (store === undefined) throw new ApiError(503, code, `${needs}: set RELAYFLOW_DATABASE_URL (PostgreSQL) for ${by}`);
    return store;
  };

export const errorResponses = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));
