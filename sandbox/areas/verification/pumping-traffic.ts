// Pumping-like traffic for tests and benchmarks: POST /_sandbox/verification/pumping-traffic makes the
// sandbox act as a pumping bot against a relayflow API: many verification starts to numbers under one prefix, and
// never a code reported. It answers with what relayflow said to each (a tally by status and error code, and the
// first refusal), so a test can see when a guard stopped it. The API key is used for the calls only, never kept.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';

const Body = Type.Object(
  {
    relayflowUrl: Type.String({ pattern: '^https?://', description: "relayflow API's base address" }),
    apiKey: Type.String({ minLength: 1 }),
    /** E.164 digits the numbers begin with (a + allowed); each number is filled with digits up to `length`. */
    prefix: Type.String({ pattern: '^\\+?[1-9][0-9]{1,13}$' }),
    length: Type.Optional(Type.Integer({ minimum: 8, maximum: 15, description: 'Digits of each number, country code included (default 11)' })),
    count: Type.Integer({ minimum: 1, maximum: 1000 }),
    /** The first number's digits after the prefix (then one more each); default a random start. */
    from: Type.Optional(Type.Integer({ minimum: 0 })),
    method: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })),
    /** Passed with every start (a bot reusing one IP, say). */
    rateLimits: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** Stop at the first refusal (any 4xx other than 400). */
    stopOnRefusal: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

interface Tally {
  sent: number;
  /** By HTTP status, then by error code (`201`, `429 pumping_suspected`, ...). */
  answers: Record<string, number>;
  firstRefusal?: { index: number; status: number; code?: string; message?: string };
  processIds: string[];
}

export function registerPumpingTraffic(scope: FastifyInstance): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/pumping-traffic', { schema: { body: Body } }, async (request) => {
    const b = request.body;
    const prefix = b.prefix.replace(/^\+/, '');
    const length = Math.max(b.length ?? 11, prefix.length + 1);
    const base = b.relayflowUrl.replace(/\/+$/, '');
    const tally: Tally = { sent: 0, answers: {}, processIds: [] };
    // Distinct numbers: the per-number guard must not be what stops the bot. A test that picks numbers of its own
    // under the prefix says where the bot's begin, so the two never meet.
    const seed = b.from ?? Math.floor(Math.random() * 10 ** (length - prefix.length));
    const numberOf = (i: number) => `+${prefix}${String((seed + i) % 10 ** (length - prefix.length)).padStart(length - prefix.length, '0')}`;
    let next = 0;
    let stopped = false;
    const worker = async () => {
      while (!stopped && next < b.count) {
        const index = next++;
        const res = await fetch(`${base}/v1/verifications`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${b.apiKey}` },
          body: JSON.stringify({ identity: numberOf(index), method: b.method ?? 'sms', ...(b.rateLimits ? { rateLimits: b.rateLimits } : {}) }),
        });
        const body = (await res.json().catch(() => ({}))) as { processId?: string; error?: { code?: string; message?: string } };
        tally.sent += 1;
        const key = body.error?.code ? `${res.status} ${body.error.code}` : String(res.status);
        tally.answers[key] = (tally.answers[key] ?? 0) + 1;
        if (body.processId) tally.processIds.push(body.processId);
        if (res.status >= 401 && res.status < 500 && (!tally.firstRefusal || index < tally.firstRefusal.index)) {
          tally.firstRefusal = {
            index,
            status: res.status,
            ...(body.error?.code ? { code: body.error.code } : {}),
            ...(body.error?.message ? { message: body.error.message } : {}),
          };
          if (b.stopOnRefusal) stopped = true;
        }
      }
    };
    await Promise.all(Array.from({ length: b.concurrency ?? 4 }, worker));
    return tally;
  });
}
