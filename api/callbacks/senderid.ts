// The platform's sender ID registration callbacks: `X-Service-Signature` (hex HMAC-SHA1 of the raw body)
// checked first against relayflow's secrets (current first, then the previous one during a rotation:
// common/secret-rotation.ts, as the provisioning webhook intake); a
// bad or missing signature is a 401, logged without the body. Then one TypeBox schema (only registrationId
// is required; unknown fields allowed), and the callback becomes a hint signalled-with-start to the
// registration's relay (workflows/senderid/callback-relay.ts), then 200. The platform is not called here: the
// relay reads whose registration it is and signals that process (or one that adopts it).
import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Client } from '@temporalio/client';
import type { ErrorObject } from 'ajv';
import Type, { type Static } from 'typebox';
import type { Logger } from '../../common/logger.js';
import { verifySenderIdCallback } from '../../common/signing.js';
import { acceptedSecrets, secretsInOrder } from '../../common/secret-rotation.js';
import { SENDERID_CALLBACK_PATH } from '../../contracts/callbacks.js';
import {
  senderIdCallbackRelayId,
  senderIdCallbackSignal,
  type SenderIdCallbackHint,
  type SenderIdCallbackRelayInput,
} from '../../contracts/senderid-registration.js';
import { ApiError } from '../errors.js';
import { validationDetails, validatorCompiler } from '../plugins/validation.js';
import type { senderIdCallbackRelay } from '../../workflows/senderid/callback-relay.js';

const Opt = Type.Optional(Type.String({ maxLength: 4096 }));
const SenderIdCallback = Type.Object({
  registrationId: Type.String({ minLength: 1, maxLength: 256 }),
  eventId: Opt,
  eventType: Opt,
  registrationState: Opt,
  message: Opt,
  etaDate: Opt,
  attachmentId: Opt,
  uploadStatus: Opt,
});
type Body = Static<typeof SenderIdCallback>;

const validate = validatorCompiler({ schema: SenderIdCallback, method: 'POST', url: SENDERID_CALLBACK_PATH, httpPart: 'body' }) as ((b: unknown) => boolean) & {
  errors?: ErrorObject[] | null;
};

export interface SenderIdCallbackOptions {
  client: Client;
  taskQueue: string;
  projectId: string;
  /** Accepted secrets, current first. */
  secrets: readonly string[];
  pollIntervalMs: number;
  overdueGraceMs: number;
}

export const senderIdCallbackRoutes: FastifyPluginAsync<SenderIdCallbackOptions> = async (app, opts) => {
  const { client, taskQueue, projectId } = opts;
  const secrets = secretsInOrder(opts.secrets);

  app.post(SENDERID_CALLBACK_PATH, { config: { auth: 'signature' }, schema: { hide: true } as never }, async (req, reply) => {
    const log = req.log as unknown as Logger;
    const rawBody = req.rawBody ?? Buffer.alloc(0);
    const signed = verifySenderIdCallback({ headers: req.headers, rawBody, secrets: acceptedSecrets(secrets) });
    if (!signed.ok) {
      // Never the body: it is not ours until the signature says so.
      log.warn({ reason: signed.reason, bytes: rawBody.length }, 'sender ID callback refused: bad or missing signature');
      throw new ApiError(401, 'bad_signature', `callback signature rejected: ${signed.reason}`);
    }
    if (signed.secretIndex > 0) log.info({ secretIndex: signed.secretIndex }, 'sender ID callback signed with a previous secret (rotation under way)');
    if (!validate(req.body)) {
      const details = validationDetails(validate.errors ?? [], 'body');
      throw new ApiError(400, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
    }
    const body = req.body as Body;
    const hint: SenderIdCallbackHint = {
      eventId: body.eventId ?? `sha256:${createHash('sha256').update(rawBody).digest('base64url')}`,
      eventType: body.eventType ?? 'UNKNOWN',
      registrationId: body.registrationId,
      ...(body.registrationState ? { registrationState: body.registrationState } : {}),
      ...(body.message ? { message: body.message } : {}),
      ...(body.etaDate ? { etaDate: body.etaDate } : {}),
      ...(body.attachmentId ? { attachmentId: body.attachmentId } : {}),
      ...(body.uploadStatus ? { uploadStatus: body.uploadStatus } : {}),
      receivedAt: new Date().toISOString(),
    };

    // Answer first, work after [spec]: once the hint is in Temporal (the registration's relay, started if need be),
    // the answer is 200; reading whose registration it is happens there, retried while the platform fails.
    const relay: SenderIdCallbackRelayInput = {
      projectId,
      registrationId: body.registrationId,
      pollIntervalMs: opts.pollIntervalMs,
      overdueGraceMs: opts.overdueGraceMs,
    };
    try {
      await client.workflow.signalWithStart<typeof senderIdCallbackRelay, [SenderIdCallbackHint]>('senderIdCallbackRelay', {
        workflowId: senderIdCallbackRelayId(projectId, body.registrationId),
        taskQueue,
        args: [relay],
        signal: senderIdCallbackSignal,
        signalArgs: [hint],
      });
    } catch (err) {
      log.warn({ err, registrationId: body.registrationId, eventId: hint.eventId }, 'sender ID callback not recorded; the platform will retry');
      throw new ApiError(503, 'unavailable', 'could not record the callback; retry later', undefined, 5_000);
    }
    return reply.status(200).send({});
  });
};
