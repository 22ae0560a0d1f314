// The platform's sender ID registration callbacks: `X-Service-Signature` (hex HMAC-SHA1 of the raw body)
// checked first against relayflow's secrets (current first, then the previous one during a rotation); a
// bad or missing signature is a 401, logged without the body. Then one TypeBox schema (only registrationId
// is required; unknown fields allowed), and the callback becomes a hint signal to the process that follows
// the registration: the one whose key the registration is tagged with, else (a registration relayflow does
// not know) a new process that adopts it, by signal-with-start under `reg-<registrationId>`.
import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ErrorObject } from 'ajv';
import Type, { type Static } from 'typebox';
import type { Logger } from '../../common/logger.js';
import { verifySenderIdCallback } from '../../common/signing.js';
import { SENDERID_CALLBACK_PATH } from '../../contracts/callbacks.js';
import { senderIdAdoptedKey, workflowIds } from '../../contracts/ids.js';
import { senderIdCallbackSignal, type SenderIdCallbackHint, type SenderIdRegistrationInput } from '../../contracts/senderid-registration.js';
import { PlatformError, PlatformNotFoundError } from '../../platform/errors.js';
import type { SenderIdClient } from '../../platform/senderid/client.js';
import { ApiError } from '../errors.js';
import { validationDetails, validatorCompiler } from '../plugins/validation.js';

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
  senderid: SenderIdClient;
  pollIntervalMs: number;
  overdueGraceMs: number;
}

const KEY_TAG = /^relayflow-key:(.+)$/;

export const senderIdCallbackRoutes: FastifyPluginAsync<SenderIdCallbackOptions> = async (app, opts) => {
  const { client, taskQueue, projectId, secrets, senderid } = opts;

  app.post(SENDERID_CALLBACK_PATH, { config: { auth: 'signature' }, schema: { hide: true } as never }, async (req, reply) => {
    const log = req.log as unknown as Logger;
    const rawBody = req.rawBody ?? Buffer.alloc(0);
    const signed = verifySenderIdCallback({ headers: req.headers, rawBody, secrets });
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

    // Whose registration: the key relayflow tagged it with when it created it (the platform's record is the truth).
    let key: string | undefined;
    try {
      const registration = await senderid.getRegistration(body.registrationId);
      key = registration.tags?.map((t) => KEY_TAG.exec(t)?.[1]).find((k) => k !== undefined);
    } catch (err) {
      if (err instanceof PlatformNotFoundError) {
        log.info({ registrationId: body.registrationId }, 'sender ID callback for a registration that no longer exists: acknowledged');
        return reply.status(200).send({});
      }
      if (err instanceof PlatformError) throw new ApiError(503, 'unavailable', 'could not read the registration; retry later', undefined, 5_000);
      throw err;
    }

    try {
      if (key) {
        const processId = workflowIds['senderid-registration'](projectId, key);
        try {
          await client.workflow.getHandle(processId).signal(senderIdCallbackSignal, hint);
        } catch (err) {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
          log.info({ processId, eventId: hint.eventId }, 'sender ID callback for a process that has ended: acknowledged');
        }
        return reply.status(200).send({});
      }
      const adoptedKey = senderIdAdoptedKey(body.registrationId);
      const input: SenderIdRegistrationInput = {
        projectId,
        key: adoptedKey,
        adopt: { registrationId: body.registrationId },
        pollIntervalMs: opts.pollIntervalMs,
        overdueGraceMs: opts.overdueGraceMs,
      };
      await client.workflow.signalWithStart('senderIdRegistration', {
        workflowId: workflowIds['senderid-registration'](projectId, adoptedKey),
        taskQueue,
        args: [input],
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
