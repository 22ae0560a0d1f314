// Provisioning error bodies as docs/provisioning-wire.md has them. The core family (errors.ts)
// renders the base; normaliseErrorBody maps its codes onto the contract's (conflict, rate_limited,
// internal, unavailable) and lifts validationErrors to the top level. It runs on every error answer
// of the area, so thrown errors, auth failures and injected faults all get the same shape.
import type { FastifyInstance } from 'fastify';
import { AreaError, provisioningErrors, type FieldViolation } from '../../core/errors.js';

export class ProvisioningError extends AreaError {
  readonly resolution: string;
  readonly additionalInformation: Record<string, unknown> | undefined;

  constructor(
    status: number,
    errorCode: string,
    message: string,
    opts: { resolution?: string; additionalInformation?: Record<string, unknown>; validationErrors?: FieldViolation[] } = {},
  ) {
    super(status, message, { code: errorCode, ...(opts.validationErrors ? { details: opts.validationErrors } : {}) });
    this.resolution = opts.resolution ?? '';
    this.additionalInformation = opts.additionalInformation;
  }
}

export function invalidInput(violations: FieldViolation[]): ProvisioningError {
  const text = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
  return new ProvisioningError(400, 'invalid_input', `Invalid input: ${text}`, {
    validationErrors: violations,
    resolution: 'Correct the fields named in validationErrors and retry.',
  });
}

export const notFound = (what: string, id: string) =>
  new ProvisioningError(404, 'not_found', `${what} ${id} not found`, { resolution: 'Check the ID and the project.' });

export const conflict = (message: string) =>
  new ProvisioningError(409, 'conflict', message, { resolution: 'Use the existing resource or change the request.' });

const DEFAULT_RESOLUTIONS: Record<string, string> = {
  invalid_input: 'Correct the request and retry.',
  unauthenticated: 'Authenticate with an OAuth 2.0 bearer token (or Basic key ID and secret).',
  permission_denied: 'Use a key of the project named in the path.',
  not_found: 'Check the path and the IDs in it.',
  conflict: 'Use the existing resource or change the request.',
  rate_limited: 'Retry after the number of seconds in Retry-After.',
  internal: 'Retry later.',
  unavailable: 'Retry later.',
};

/** Idempotent: maps the core family's codes to the contract's and lifts validationErrors. */
function normaliseErrorBody(status: number, body: Record<string, unknown>): Record<string, unknown> {
  const out = { ...body };
  let code = out.errorCode;
  if (code === 'too_many_requests') code = 'rate_limited';
  else if (code === 'internal_error') code = status === 503 ? 'unavailable' : 'internal';
  else if (code === 'invalid_request' && status === 409) code = 'conflict';
  out.errorCode = code;
  const info = out.additionalInformation as Record<string, unknown> | undefined;
  if (info && Array.isArray(info.validationErrors)) {
    const { validationErrors, ...rest } = info;
    out.validationErrors = validationErrors;
    if (Object.keys(rest).length) out.additionalInformation = rest;
    else delete out.additionalInformation;
  }
  if (!out.resolution && typeof code === 'string') out.resolution = DEFAULT_RESOLUTIONS[code] ?? '';
  return out;
}

function render(error: AreaError): Record<string, unknown> {
  const base = provisioningErrors.render({ status: error.status, message: error.message, code: error.code, details: error.details });
  const body = normaliseErrorBody(error.status, base as Record<string, unknown>);
  if (error instanceof ProvisioningError) {
    if (error.resolution) body.resolution = error.resolution;
    if (error.additionalInformation) body.additionalInformation = { ...error.additionalInformation };
  }
  return body;
}

/** Installs the contract's error shape on the area's scope. */
export function installProvisioningErrors(app: FastifyInstance): void {
  app.setErrorHandler((error, _request, reply) => {
    // Anything else (schema, body size, unexpected) goes to the sandbox's handler; onSend fixes its body.
    if (!(error instanceof AreaError)) throw error;
    for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
    return reply.code(error.status).send(render(error));
  });

  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
    try {
      const parsed = JSON.parse(payload) as unknown;
      if (!parsed || typeof parsed !== 'object' || typeof (parsed as { errorCode?: unknown }).errorCode !== 'string') return payload;
      return JSON.stringify(normaliseErrorBody(reply.statusCode, parsed as Record<string, unknown>));
    } catch {
      return payload;
    }
  });
}
