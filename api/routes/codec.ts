// Codec server endpoints (POST /codec/encode, /codec/decode) for the Temporal web UI and
// `temporal ... --codec-endpoint`: they see ciphertext in the history and ask us to decode it.
// The endpoint decrypts anything it is given, so it sits behind the API's auth hook like any route;
// only CORS preflights (OPTIONS, which browsers send without credentials) pass that hook.
import { TypeBoxValidatorCompiler, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { ApiError, errorResponses } from '../errors.js';

interface CodecRoutesOptions {
  codec: PayloadCodec;
  /** Browser origins (e.g. the web UI's `http://localhost:8080`) allowed to call these routes. */
  allowedOrigins: string[];
  /** Which routes to serve (default both): the development listener (api/dev-codec.ts) serves decode only. */
  operations?: ReadonlyArray<'encode' | 'decode'>;
}

// Proto JSON form of a Payload: bytes as base64 (standard or URL-safe). Node's base64 decoder skips
// junk silently, so the pattern is what turns a mangled body into a 400.
const Base64 = Type.String({ pattern: '^[A-Za-z0-9+/_-]*={0,2}$' });
const JsonPayload = Type.Object({
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Base64), Type.Null()])),
  data: Type.Optional(Type.Union([Base64, Type.Null()])),
});
const PayloadsBody = Type.Object({ payloads: Type.Array(JsonPayload) });
type JsonPayload = Static<typeof JsonPayload>;

const OPERATIONS = ['encode', 'decode'] as const;
const ALLOW_HEADERS = 'content-type, authorization, x-namespace';
// A history page can hold many payloads of up to 2 MB each; Fastify's 1 MiB default is too small.
const BODY_LIMIT = 16 * 1024 * 1024;

function fromJson({ metadata, data }: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: data ? Buffer.from(data, 'base64') : undefined,
  };
}

function toJson({ metadata, data }: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    ...(data && data.length > 0 ? { data: Buffer.from(data).toString('base64') } : {}),
  };
}

/** Register WITHOUT a prefix: the routes carry their full paths. */
const codecRoutes: FastifyPluginAsyncTypebox<CodecRoutesOptions> = async (app, opts) => {
  // Never coerce the body (Fastify's default Ajv turns 5 into "5", which passes as base64), whatever
  // validator the host app installed; TypeBox reports errors in Ajv's shape, so the app's error
  // handler formats them as usual.
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  const allowed = new Set(opts.allowedOrigins);
  const allowedOrigin = (req: FastifyRequest): string | undefined => {
    const origin = req.headers.origin;
    return origin && allowed.has(origin) ? origin : undefined;
  };

  // Hook of this encapsulated plugin only. It also runs when the auth hook answers 401, so the UI
  // sees the real status instead of an opaque CORS error.
  app.addHook('onSend', async (req, reply: FastifyReply, payload) => {
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Origin` : 'Origin');
    const origin = allowedOrigin(req);
    if (origin) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-allow-credentials', 'true');
    }
    return payload;
  });

  const operations = OPERATIONS.filter((op) => (opts.operations ?? OPERATIONS).includes(op));
  for (const path of operations.map((op) => `/codec/${op}`)) {
    app.options(path, { schema: { hide: true } }, async (req, reply) => {
      const method = req.headers['access-control-request-method'];
      if (allowedOrigin(req) && typeof method === 'string' && method.toUpperCase() === 'POST') {
        reply.header('access-control-allow-methods', 'POST');
        reply.header('access-control-allow-headers', ALLOW_HEADERS);
        reply.header('access-control-max-age', '600');
      }
      return reply.code(204).send();
    });
  }

  // 400, 401, 413 and 415 are declared for every route by the docs plugin; 422 is this route's own.
  const schema = (summary: string) => ({ tags: ['codec'], summary, body: PayloadsBody, response: { 200: PayloadsBody, ...errorResponses(422) } });
  const run = async (payloads: JsonPayload[], op: (p: Payload[]) => Promise<Payload[]>) => {
    let out: Payload[];
    try {
      out = await op(payloads.map(fromJson));
    } catch (err) {
      // Unknown key id, tampered data: the request's payloads are at fault, not the server.
      throw new ApiError(422, 'codec_failed', `codec failed: ${(err as Error).message}`);
    }
    return { payloads: out.map(toJson) };
  };

  if (operations.includes('encode')) {
    app.post('/codec/encode', { schema: schema('Encrypt payloads (Temporal codec server protocol)'), bodyLimit: BODY_LIMIT }, async (req) =>
      run(req.body.payloads, (p) => opts.codec.encode(p)),
    );
  }
  if (operations.includes('decode')) {
    app.post('/codec/decode', { schema: schema('Decrypt payloads for the web UI and CLI'), bodyLimit: BODY_LIMIT }, async (req) =>
      run(req.body.payloads, (p) => opts.codec.decode(p)),
    );
  }
};

export default codecRoutes;
