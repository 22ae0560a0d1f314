// The platform's verification callbacks: signed with the application secret, answered fast. Requests are
// allowed or denied by the per-number guard; results and SMS receipts become signals to their process.
import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { verifyApplicationRequest } from '../../common/signing.js';
import type { Logger } from '../../common/logger.js';
import { verificationIdOfReference } from '../../contracts/ids.js';
import { platformEventSignal, type PlatformVerificationEvent } from '../../contracts/verification.js';
import { VERIFICATION_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { ApiError } from '../errors.js';
import type { VerificationService } from '../routes/verification/service.js';


interface CallbackBody {
  event?: string;
  id?: string;
  method?: string;
  identity?: { endpoint?: string };
  reference?: string;
  status?: string;
  reason?: string;
  smsResult?: 'Successful' | 'Failed';
}

export interface VerificationCallbackOptions {
  client: Client;
  verifications: VerificationService;
  appKey: string;
  appSecret: string;
}

const eventIdOf = (b: CallbackBody) => createHash('sha256').update(JSON.stringify([b.event, b.id, b.status ?? '', b.reason ?? '', b.smsResult ?? ''])).digest('base64url');

export const verificationCallbackRoutes: FastifyPluginAsync<VerificationCallbackOptions> = async (app, { client, verifications, appKey, appSecret }) => {
  app.post(VERIFICATION_CALLBACK_PATH, { config: { auth: 'signature' }, schema: { hide: true } as never }, async (req, reply) => {
    const check = verifyApplicationRequest({
      headers: req.headers,
      method: 'POST',
      path: req.url.split('?')[0]!,
      rawBody: req.rawBody ?? Buffer.alloc(0),
      secretForKey: (key) => (key === appKey ? appSecret : undefined),
    });
    if (!check.ok) throw new ApiError(401, 'bad_signature', `callback signature rejected: ${check.reason}`);
    const body = (req.body ?? {}) as CallbackBody;
    const log = req.log as unknown as Logger;

    if (body.event === 'VerificationRequestEvent') return decide(body, log);

    const processId = verificationIdOfReference(body.reference);
    if (!processId || !body.id) {
      // Not started by relayflow (an SDK verification): acknowledged, nothing to route to.
      log.info({ event: body.event, verificationId: body.id }, 'verification callback for no relayflow process');
      return reply.status(200).send({});
    }
    const signal: PlatformVerificationEvent = body.event === 'SmsDeliveredEvent'
      ? { eventId: eventIdOf(body), kind: 'sms-delivered', verificationId: body.id, ...(body.smsResult ? { smsResult: body.smsResult } : {}) }
      : { eventId: eventIdOf(body), kind: 'result', verificationId: body.id, ...(body.status ? { status: body.status } : {}), ...(body.reason ? { reason: body.reason } : {}) };
    try {
      await client.workflow.getHandle(processId).signal(platformEventSignal, signal);
    } catch (err) {
      // A finished or unknown process has nothing left to learn; anything else (Temporal down) must be
      // retried by the platform, so it is not acknowledged.
      if (!(err instanceof WorkflowNotFoundError)) throw new ApiError(503, 'unavailable', 'could not record the callback; retry later', undefined, 5_000);
      log.info({ processId, event: body.event }, 'callback for a process that has ended');
    }
    return reply.status(200).send({});
  });

  async function decide(body: CallbackBody, log: Logger): Promise<{ action: 'allow' | 'deny' }> {
    // Verifications relayflow started were admitted by the guard already.
    if (verificationIdOfReference(body.reference)) return { action: 'allow' };
    const identity = body.identity?.endpoint;
    if (!identity || !body.id) return { action: 'deny' };
    const { admitted } = await verifications.admit(identity, `platform:${body.id}`, body.method ? [body.method] : []);
    if (!admitted) log.warn({ verificationId: body.id }, 'verification request denied by the per-number guard');
    return { action: admitted ? 'allow' : 'deny' };
  }
};
