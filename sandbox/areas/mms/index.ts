// Area C, MMS over JSON (docs/mms-wire.md): one POST whose `action` is sendmms, savemms or sendsavedmms,
// x-api-key authentication, the slide and field rules with the platform's E-codes, media fetched as the
// platform does, the account's throughput limit (E113: slow down), and postbacks (N101, then a final code)
// with the platform's retry schedule. Control routes under /_sandbox/mms.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxArea } from '../../core/area.js';
import { authenticateApiKey } from '../../core/auth-api-key.js';
import { AreaError } from '../../core/errors.js';
import { mmsControlRoutes } from './control.js';
import { MediaChecker } from './media.js';
import { MmsState } from './state.js';
import { parseMmsRequest, type MmsRequest } from './validate.js';

export const mmsArea: SandboxArea = {
  name: 'mms',
  setup(ctx) {
    const state = new MmsState(ctx);
    const media = new MediaChecker();
    ctx.own({ parts: [state, media], kept: { name: 'mms', parts: state.kept } });

    async function handle(request: FastifyRequest, reply: FastifyReply) {
      state.stats.requests++;
      const q = request.query as Record<string, unknown>;
      if (q['api-key'] !== undefined || q.apikey !== undefined)
        throw new AreaError(401, 'the API key belongs in the x-api-key header, never in the query string', { code: 'E104' });
      authenticateApiKey(ctx, request);
      if (!String(request.headers['content-type'] ?? '').startsWith('application/json'))
        throw new AreaError(400, 'Content-Type must be application/json; charset=utf-8', { code: 'E108' });
      const req = parseMmsRequest(request.body, Date.now());
      if (req.to && state.settings.blockedNumbers.includes(req.to)) throw new AreaError(400, `${req.to} is blocked`, { code: 'E114' });
      const rate = ctx.rateLimiter.checkRateLimit('mms:account', state.settings.throughputPerSecond);
      if (!rate.allowed) {
        state.stats.refusedE113++;
        throw new AreaError(429, `throughput exceeded: at most ${state.settings.throughputPerSecond} requests per second`, {
          code: 'E113',
          headers: { 'retry-after': '1' },
        });
      }
      const answer = await accept(req);
      const fault = state.settings.sendFaults;
      if (fault.count > 0 && req.action !== 'savemms') {
        fault.count--;
        // Accepted and recorded, answered late: a client with a shorter timeout loses the answer.
        await ctx.sleep(fault.acceptThenDelayMs);
      }
      return reply.send(answer);
    }

    async function accept(req: MmsRequest) {
      let slides = req.slides;
      let fallbackDisabled = req.fallbackDisabled;
      if (req.action === 'sendsavedmms') {
        const t = state.templates.get(req.mmsId!);
        if (!t) throw new AreaError(400, `mms-id ${req.mmsId} is not a saved MMS of this account`, { code: 'E100' });
        slides = t.slides;
        fallbackDisabled = t.fallbackDisabled;
      } else {
        for (const m of slides.flatMap((s) => s.media)) {
          const problem = await media.check(m.url);
          if (problem) throw new AreaError(400, problem, { code: 'E227' });
        }
      }
      if (req.action === 'savemms') {
        const mmsId = `mms-${state.templates.size + 1}-${Date.now().toString(36)}`;
        state.templates.set(mmsId, { serviceId: req.serviceId!, slides, fallbackDisabled });
        state.stats.saved++;
        return { status: 'Success', 'mms-id': mmsId };
      }
      const msg = state.accept({
        to: req.to!,
        fallbackDisabled,
        ...(req.clientReference ? { clientReference: req.clientReference } : {}),
        ...(req.mmsId ? { mmsId: req.mmsId } : {}),
      });
      return { status: 'Success', 'tracking-id': msg.trackingId };
    }

    return {
      routes: (app) => {
        // Under a prefix Fastify serves '/' both with and without the trailing slash, as the platform
        // does for its base address ending in /ep/v2/.
        app.post('/', handle);
      },
      control: (app) => mmsControlRoutes(app, state),
    };
  },
};
