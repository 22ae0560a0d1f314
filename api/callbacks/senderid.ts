// The platform's sender ID registration callbacks, through the intake pipeline (intake.ts): `X-Service-Signature` (hex
// HMAC-SHA1 of the raw body) checked first against relayflow's secrets (current first, then the previous one during a
// rotation: common/secret-rotation.ts, as the provisioning webhook intake); a bad or missing signature is a 401. Then
// one TypeBox schema (only registrationId is required; unknown fields allowed); the event ID is the body's `eventId`,
// else a hash of the raw body (docs/senderid-wire.md). The callback becomes a hint signalled to the process linked to its
// registration (store/resource-links.ts, written when the process created or adopted it), then 200. A registration
// with no linked process still running has the hint signalled-with-start to its relay
// (processes/senderid/senderid-registration/workflow/callback-relay.ts): the platform is not called here, the relay reads whose registration it
// is and signals that process (or one that adopts it). An unreachable Temporal or store is a 503.
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ErrorObject } from 'ajv';
import Type, { type Static } from 'typebox';
import { verifySenderIdCallback } from '../../common/signing.js';
import { acceptedSecrets, secretsInOrder } from '../../common/secret-rotation.js';
import { SENDERID_CALLBACK_PATH } from '../../contracts/callbacks.js';
import {
  senderIdCallbackRelayId,
  senderIdCallbackSignal,
  type SenderIdCallbackHint,
  type SenderIdCallbackRelayInput,
} from '../../processes/senderid/senderid-registration/contract.js';
import type { ResourceLinkStore } from '../../store/resource-links.js';
import type { senderIdCallbackRelay } from '../../processes/senderid/senderid-registration/workflow/callback-relay.js';
import { ApiError } from '../errors.js';
import { validationDetails, validatorCompiler } from '../plugins/validation.js';
import { bodyHash, type IntakePipeline } from './intake.js';

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
  intakes: IntakePipeline;
  client: Client;
  taskQueue: string;
  projectId: string;
  /** Accepted secrets, current first. */
  secrets: readonly string[];
  pollIntervalMs: number;
  overdueGraceMs: number;
  /** The registrations' links to their processes; without the store every callback goes through the relay. */
  links?: ResourceLinkStore | undefined;
}

export const senderIdCallbackRoutes: FastifyPluginAsync<SenderIdCallbackOptions> = async (app, opts) => {
  const { intakes, client, taskQueue, projectId, links } = opts;
  const secrets = secretsInOrder(opts.secrets);

  /** The processes linked to the registration that took the hint; ended ones are unlinked. */
  async function toLinkedProcesses(relayId: string, hint: SenderIdCallbackHint, log: FastifyBaseLogger): Promise<string[]> {
    const reached: string[] = [];
    for (const link of links ? await links.owners(relayId) : []) {
      try {
        // By workflow ID only, so it reaches the current run (after a continue-as-new too).
        await client.workflow.getHandle(link.processId).signal(senderIdCallbackSignal, hint);
        reached.push(link.processId);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        await links!.unlink(relayId, link).catch((e: unknown) => log.warn({ err: e, relayId }, 'a stale registration link was not removed'));
      }
    }
    return reached;
  }

  intakes.route<SenderIdCallbackHint>(app, {
    intake: 'senderid',
    url: SENDERID_CALLBACK_PATH,
    verify: (req, rawBody) => verifySenderIdCallback({ headers: req.headers, rawBody, secrets: acceptedSecrets(secrets) }),
    read: (req, rawBody) => {
      if (!validate(req.body)) {
        const details = validationDetails(validate.errors ?? [], 'body');
        throw new ApiError(400, 'validation_failed', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
      }
      const body = req.body as Body;
      const hint: SenderIdCallbackHint = {
        eventId: body.eventId ?? bodyHash(rawBody),
        eventType: body.eventType ?? 'UNKNOWN',
        registrationId: body.registrationId,
        ...(body.registrationState ? { registrationState: body.registrationState } : {}),
        ...(body.message ? { message: body.message } : {}),
        ...(body.etaDate ? { etaDate: body.etaDate } : {}),
        ...(body.attachmentId ? { attachmentId: body.attachmentId } : {}),
        ...(body.uploadStatus ? { uploadStatus: body.uploadStatus } : {}),
        receivedAt: new Date().toISOString(),
      };
      return { eventId: hint.eventId, event: hint };
    },
    // Answer first, work after [spec]: once the hint is in Temporal (its linked process, else the registration's relay,
    // started if need be), the answer is 200; the relay's read of whose registration it is is retried while the platform fails.
    handOff: async (hint, { log }) => {
      const relay: SenderIdCallbackRelayInput = {
        projectId,
        registrationId: hint.registrationId,
        pollIntervalMs: opts.pollIntervalMs,
        overdueGraceMs: opts.overdueGraceMs,
      };
      const relayId = senderIdCallbackRelayId(projectId, hint.registrationId);
      const reached = await toLinkedProcesses(relayId, hint, log);
      if (reached.length === 0)
        await client.workflow.signalWithStart<typeof senderIdCallbackRelay, [SenderIdCallbackHint]>('senderIdCallbackRelay', {
          workflowId: relayId,
          taskQueue,
          args: [relay],
          signal: senderIdCallbackSignal,
          signalArgs: [hint],
        });
      log.debug({ registrationId: hint.registrationId, eventId: hint.eventId, to: reached.length ? reached : relayId }, 'sender ID callback delivered');
      return { answer: { body: {} } };
    },
  });
};
