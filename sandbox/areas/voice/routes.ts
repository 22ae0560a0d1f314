// The calling address (docs/voice-wire.md "Callouts", "Calls and conferences"), once per region prefix inside the
// /voice mount: '' and /global are the global region, /euc1 ... /apse2 the others. Signed requests; a call or a
// conference is found only on the address of its own region (404, 40400, elsewhere).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaMount } from '../../core/area-mount.js';
import { applicationAuth } from '../../core/auth-application.js';
import { assertBodyParsed } from '../../core/body-parsers.js';
import type { SandboxContext } from '../../core/context.js';
import { AreaError } from '../../core/errors.js';
import { authOf } from '../../core/request-state.js';
import { apply, recordInstructions } from './actions.js';
import type { CallEngine } from './calls.js';
import { REGION_PREFIXES, type Call } from './state.js';
import type { VoiceRegion } from '../../../common/wire/voice.js';
import { bad, parseCallout, parseCallUpdate, parseLegUpdate, parseParticipantCommand } from './validate.js';
import { callInfo } from './views.js';

type Params = Record<string, string>;
const notFound = (message: string) => new AreaError(404, message, { code: 40400 });

export function callingRoutes(ctx: SandboxContext, engine: CallEngine, mount: AreaMount) {
  return async (app: FastifyInstance) => {
    for (const [prefix, region] of REGION_PREFIXES) {
      await app.register(async (scope) => regionRoutes(scope, ctx, engine, mount, region), { prefix });
    }
  };
}

function regionRoutes(app: FastifyInstance, ctx: SandboxContext, engine: CallEngine, mount: AreaMount, region: VoiceRegion): void {
  const opts = { preValidation: [applicationAuth(ctx), async (r: FastifyRequest) => assertBodyParsed(r)] };
  const appKey = (r: FastifyRequest) => authOf(r).account.appKey;
  const callOf = (r: FastifyRequest): Call => {
    const { callId } = r.params as Params;
    const call = engine.state.callFor(appKey(r), region, callId!);
    if (!call) throw notFound(`Call ${callId} not found`);
    return call;
  };
  const ongoing = (r: FastifyRequest): Call => {
    const call = callOf(r);
    if (call.status !== 'ONGOING') throw notFound(`Call ${call.callId} has ended`);
    return call;
  };
  const conferenceOf = (r: FastifyRequest) => {
    const { conferenceId } = r.params as Params;
    const conf = engine.conferences.find(appKey(r), region, conferenceId!);
    if (!conf) throw notFound(`Conference ${conferenceId} not found`);
    return conf;
  };
  const participantOf = (r: FastifyRequest) => {
    const conf = conferenceOf(r);
    const { callId } = r.params as Params;
    const p = conf.participants.get(callId!);
    if (!p) throw notFound(`Call ${callId} is not in conference ${conf.conferenceId}`);
    return p;
  };
  const noContent = (reply: FastifyReply) => reply.code(204).send();

  app.post('/calling/v1/callouts', opts, async (request) => {
    const input = parseCallout(request.body);
    const voiceBase = `${request.protocol}://${request.host}${mount.prefix}`;
    const call = engine.startCallout(input, authOf(request).account, region, voiceBase);
    return { callId: call.callId };
  });

  app.get('/calling/v1/calls/id/:callId', opts, async (request) => callInfo(callOf(request)));

  app.patch('/calling/v1/calls/id/:callId', opts, async (request, reply) => {
    const call = ongoing(request);
    const svaml = parseCallUpdate(request.body);
    if (call.answeredAt === undefined) throw bad(`call ${call.callId} is not answered yet: only a connected call can be updated`);
    apply(engine, call, svaml, 'patch').catch(() => engine.end(call, 'FAILED', 'GENERALERROR'));
    return noContent(reply);
  });

  app.patch('/calling/v1/calls/id/:callId/leg/:callLeg', opts, async (request, reply) => {
    const call = ongoing(request);
    const leg = (request.params as Params).callLeg!;
    const instructions = parseLegUpdate(leg, request.body);
    if (call.answeredAt === undefined) throw bad(`call ${call.callId} is not answered yet: only a connected call's legs can be managed`);
    recordInstructions(engine, call, instructions, 'leg', leg as 'caller' | 'callee' | 'both');
    return noContent(reply);
  });

  app.get('/calling/v1/conferences/id/:conferenceId', opts, async (request) => engine.conferences.view(conferenceOf(request)));

  app.patch('/calling/v1/conferences/id/:conferenceId/:callId', opts, async (request, reply) => {
    const p = participantOf(request);
    const { command, moh } = parseParticipantCommand(request.body);
    engine.conferences.command(p, command, moh);
    return noContent(reply);
  });

  app.delete('/calling/v1/conferences/id/:conferenceId/:callId', opts, async (request, reply) => {
    engine.end(participantOf(request).call, 'ANSWERED', 'MANAGERHANGUP');
    return noContent(reply);
  });

  app.delete('/calling/v1/conferences/id/:conferenceId', opts, async (request, reply) => {
    for (const p of [...conferenceOf(request).participants.values()]) engine.end(p.call, 'ANSWERED', 'MANAGERHANGUP');
    return noContent(reply);
  });
}
