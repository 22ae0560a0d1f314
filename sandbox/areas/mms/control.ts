// Test controls under /_sandbox/mms (docs/mms-wire.md "Sandbox controls"):
//   PUT /account   {throughputPerSecond?, postbackUrl?, postbackRetryGapMs?, postbackRetries?, blockedNumbers?}
//   PUT /delivery  {rules: [{suffix, code: N102|E102|N202|N103}], delayMs?}
//   PUT /send-faults {acceptThenDelayMs, count}: the next `count` sends are accepted, then answered late
//   GET /stats, GET /recipients, GET /messages?clientReference=
//   GET /media/<name>, /media-chunked/<name>, /media-redirect/<n>/<name>: files for the media rules
import type { FastifyInstance } from 'fastify';
import { AreaError } from '../../core/errors.js';
import { FINAL_CODES, type FinalCode, type MmsState } from './state.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
type Obj = Record<string, unknown>;
const bad = (message: string) => new AreaError(400, message);
const num = (v: unknown, name: string, min: number, max: number) => {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw bad(`${name} must be a number from ${min} to ${max}`);
  return v;
};

export function mmsControlRoutes(app: FastifyInstance, state: MmsState): void {
  app.put('/account', async (request) => {
    const b = (request.body ?? {}) as Obj;
    const s = state.settings;
    s.throughputPerSecond = num(b.throughputPerSecond, 'throughputPerSecond', 1, 100_000) ?? s.throughputPerSecond;
    s.postbackRetryGapMs = num(b.postbackRetryGapMs, 'postbackRetryGapMs', 0, 3_600_000) ?? s.postbackRetryGapMs;
    s.postbackRetries = num(b.postbackRetries, 'postbackRetries', 0, 10) ?? s.postbackRetries;
    if (b.postbackUrl !== undefined) {
      if (typeof b.postbackUrl !== 'string' || !/^https?:\/\//.test(b.postbackUrl)) throw bad('postbackUrl must be an http(s) URL');
      s.postbackUrl = b.postbackUrl;
    }
    if (b.blockedNumbers !== undefined) {
      if (!Array.isArray(b.blockedNumbers) || !b.blockedNumbers.every((n) => typeof n === 'string')) throw bad('blockedNumbers must be a list of numbers');
      s.blockedNumbers = b.blockedNumbers as string[];
    }
    return { ...s, postbackUrl: s.postbackUrl ? '(set)' : undefined };
  });

  app.put('/delivery', async (request) => {
    const b = (request.body ?? {}) as Obj;
    const rules = (b.rules ?? []) as { suffix?: unknown; code?: unknown }[];
    if (
      !Array.isArray(rules) ||
      !rules.every((r) => typeof r === 'object' && r !== null && typeof r.suffix === 'string' && FINAL_CODES.includes(r.code as FinalCode))
    )
      throw bad(`rules are [{suffix, code: ${FINAL_CODES.join('|')}}]`);
    state.settings.rules = rules as MmsState['settings']['rules'];
    state.settings.deliveryDelayMs = num(b.delayMs, 'delayMs', 0, 600_000) ?? state.settings.deliveryDelayMs;
    return { rules: state.settings.rules, delayMs: state.settings.deliveryDelayMs };
  });

  app.put('/send-faults', async (request) => {
    const b = (request.body ?? {}) as Obj;
    state.settings.sendFaults = {
      acceptThenDelayMs: num(b.acceptThenDelayMs, 'acceptThenDelayMs', 0, 120_000) ?? 0,
      count: num(b.count, 'count', 0, 1_000_000) ?? 0,
    };
    return state.settings.sendFaults;
  });

  app.get('/stats', async () => state.view());
  app.get('/recipients', async () => ({ counts: state.recipients() }));
  app.get('/messages', async (request) => ({ messages: state.messages(String((request.query as Obj).clientReference ?? '')) }));

  app.get('/media/:name', async (_request, reply) => reply.header('content-type', 'image/png').header('content-length', PNG.length).send(PNG));
  app.get('/media-chunked/:name', async (_request, reply) => {
    reply.raw.writeHead(200, { 'content-type': 'image/png', 'transfer-encoding': 'chunked' });
    reply.raw.end(PNG);
    return reply;
  });
  app.get('/media-redirect/:n/:name', async (request, reply) => {
    const { n, name } = request.params as { n: string; name: string };
    const left = Number(n);
    return reply.redirect(left > 1 ? `../../media-redirect/${left - 1}/${name}` : `../../media/${name}`, 302);
  });
}
