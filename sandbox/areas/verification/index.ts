// Area B, verification: start (sms, flashcall, callout, seamless, whatsapp), report the code or CLI by id or
// by number, status by id, by number and method, or by reference; the device's seamless visit.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqualString } from '../../../common/signing.js';
import { applicationAuth } from '../../core/auth-application.js';
import type { AreaMount } from '../../core/area-mount.js';
import { AreaError } from '../../core/errors.js';
import { projectRateLimit } from '../../core/guards.js';
import { authOf } from '../../core/request-state.js';
import type { SandboxArea } from '../../core/area.js';
import { VerificationCallbacks } from './callbacks.js';
import { VerificationConfig } from './config.js';
import { registerVerificationControl } from './control.js';
import { parseAcceptLanguage, TEMPLATES } from './language.js';
import { CLI_FILTER, Phones } from './phone.js';
import { VerificationService } from './service.js';
import { Timers } from '../../core/timers.js';
import { statusView, VerificationStore, type Verification } from './store.js';
import type { VerificationArea } from './state.js';
import { assertEndpoint, assertJsonBody, assertMethod, parseReport, parseStart } from './validate.js';

const FLASHCALL = { cliFilter: CLI_FILTER, interceptionTimeout: 45, reportTimeout: 75, denyCallAfter: 0 };
const SMS_INTERCEPTION_SECONDS = 298;

type Params = Record<string, string>;

/** `{base}` of the contract: the verification base URL as the client reached it. */
function baseUrl(request: FastifyRequest, mount: AreaMount): string {
  return `${request.protocol}://${request.host}${mount.prefix}`;
}

function startAnswer(v: Verification, base: string, expiryMs: number, s: VerificationArea): Record<string, unknown> {
  const href = `${base}/verification/v1/verifications/id/${encodeURIComponent(v.id)}`;
  const out: Record<string, unknown> = {
    id: v.id,
    method: v.method,
    _links: [
      { rel: 'status', href, method: 'GET' },
      { rel: 'report', href, method: 'PUT' },
    ],
  };
  if (v.method === 'sms') {
    const interceptionTimeout = Math.max(1, Math.min(SMS_INTERCEPTION_SECONDS, Math.floor(expiryMs / 1000)));
    out.sms = { template: TEMPLATES[v.language], interceptionTimeout, codeType: v.codeType };
  } else if (v.method === 'flashcall') {
    out.flashCall = { ...FLASHCALL };
  } else if (v.method === 'callout') {
    out.callout = { ...s.config.current.callout };
  } else if (v.method === 'whatsapp') {
    out.whatsapp = { codeType: v.codeType };
  } else {
    // An unreachable number never gets a token; its targetUri then leads nowhere.
    out.seamless = { targetUri: `${base}/verification/v1/seamless/${v.id}/${v.seamlessToken ?? 'none'}` };
  }
  return out;
}

function found(v: Verification | undefined, what: string): Verification {
  if (!v) throw new AreaError(404, `Verification not found: ${what}`);
  return v;
}

function routes(s: VerificationArea, mount: AreaMount) {
  return async (app: FastifyInstance) => {
    const { ctx, store, service } = s;
    const guard = [applicationAuth(ctx), projectRateLimit(ctx), async (r: FastifyRequest) => assertJsonBody(r)];
    const base = '/verification/v1/verifications';
    const appKey = (r: FastifyRequest) => authOf(r).account.appKey;

    app.post(base, { preValidation: guard }, async (request, reply: FastifyReply) => {
      const input = parseStart(request.body);
      const account = authOf(request).account;
      const v = await service.start(input, account, parseAcceptLanguage(request.headers['accept-language']));
      reply.header('content-language', v.language);
      return startAnswer(v, baseUrl(request, mount), input.expiryMs ?? s.config.current.expiryMs, s);
    });

    app.put(`${base}/id/:id`, { preValidation: guard }, async (request) => {
      const { id } = request.params as Params;
      const input = parseReport(request.body);
      return service.report(found(store.get(appKey(request), id!), `id ${id}`), input);
    });

    app.put(`${base}/number/:endpoint`, { preValidation: guard }, async (request) => {
      const { endpoint } = request.params as Params;
      assertEndpoint(endpoint!);
      const input = parseReport(request.body);
      return service.report(found(store.newestByNumber(appKey(request), endpoint!), `number ${endpoint}`), input);
    });

    app.get(`${base}/id/:id`, { preValidation: guard }, async (request) => {
      const { id } = request.params as Params;
      return statusView(found(store.get(appKey(request), id!), `id ${id}`));
    });

    app.get(`${base}/reference/:reference`, { preValidation: guard }, async (request) => {
      const { reference } = request.params as Params;
      return statusView(found(store.newestByReference(appKey(request), reference!), `reference ${reference}`));
    });

    app.get(`${base}/:method/number/:endpoint`, { preValidation: guard }, async (request) => {
      const p = request.params as Params;
      const method = assertMethod(p.method!);
      assertEndpoint(p.endpoint!);
      return statusView(found(store.newestByNumber(appKey(request), p.endpoint!, method), `${method} number ${p.endpoint}`));
    });

    // The device's plain GET of targetUri: no authentication, the token is the secret.
    app.get('/verification/v1/seamless/:id/:token', async (request) => {
      const { id, token } = request.params as Params;
      const v = store.getAnyApp(id!);
      if (!v?.seamlessToken || !timingSafeEqualString(v.seamlessToken, token!)) throw new AreaError(404, 'Unknown seamless target');
      service.visitSeamless(v);
      return { status: v.status };
    });
  };
}

export const verificationArea: SandboxArea = {
  name: 'verification',
  setup(ctx) {
    const config = new VerificationConfig(ctx.options.verification);
    const store = new VerificationStore();
    const phones = new Phones();
    const timers = new Timers();
    const callbacks = new VerificationCallbacks(ctx, config);
    const service = new VerificationService({ ctx, store, phones, config, callbacks, timers });
    const state: VerificationArea = { ctx, store, phones, config, timers, service };
    // Kept across restarts: verifications (PENDING ones expire when they would have), what the phones received,
    // the dashboard settings.
    ctx.own({
      parts: [timers, store, phones, config],
      kept: {
        name: 'verification',
        parts: { verifications: store, phones, config },
        resume: () => {
          for (const v of store.all()) service.armExpiry(v);
        },
      },
    });
    return {
      routes: async (app, mount) => {
        await app.register(routes(state, mount));
      },
      control: (app) => registerVerificationControl(app, state),
    };
  },
};
