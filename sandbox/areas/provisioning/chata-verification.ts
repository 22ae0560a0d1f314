// A CHATA sender's phone number verification (docs/provisioning-wire.md, "CHATA sender verification"): a sender
// in ERROR for an unverified number asks for a code (`/register`, sent by SMS or voice), then sends it back
// (`/verify`); a wrong code is 400 `wrong_otp` and may be retried, the right one resubmits the sender for review.
// The code the sandbox "sent" is readable only through the control route (a test plays the phone).
import { randomInt } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CHATA_UNVERIFIED_NUMBER_ERRORS, CHATA_VERIFICATION_METHODS } from '../../../common/wire/provisioning.js';
import type { ChataSender } from './model.js';
import { notFound, ProvisioningError } from './errors.js';
import { nowIso } from './store.js';
import { fields } from './validation.js';

type Params = { projectId: string; senderId: string };

interface VerificationDeps {
  base: string;
  preValidation: ((request: FastifyRequest) => Promise<void>)[];
  find(p: Params): ChataSender;
  /** The right code: the sender goes back to PENDING, is reported and reviewed again. */
  verified(projectId: string, s: ChataSender): void;
}

function awaitingVerification(s: ChataSender): void {
  if (s.state === 'ERROR' && s.errorCode !== undefined && CHATA_UNVERIFIED_NUMBER_ERRORS.includes(s.errorCode)) return;
  throw new ProvisioningError(409, 'conflict', `CHATA sender ${s.id} is not waiting for phone number verification`, {
    resolution: `Only a sender in ERROR with ${CHATA_UNVERIFIED_NUMBER_ERRORS.join(' or ')} can be verified.`,
    additionalInformation: { state: s.state, ...(s.errorCode ? { errorCode: s.errorCode } : {}) },
  });
}

export function chataVerificationRoutes(app: FastifyInstance, { base, preValidation, find, verified }: VerificationDeps): void {
  app.post<{ Params: Params }>(`${base}/:senderId/register`, { preValidation }, async (request) => {
    const f = fields();
    const body = f.body(request.body, ['method']);
    const method = f.oneOf(body, 'method', '', CHATA_VERIFICATION_METHODS, true);
    f.check();
    const s = find(request.params);
    awaitingVerification(s);
    // Each request sends a new code; the previous one stops working.
    const sentAt = nowIso();
    s.verification = { code: String(randomInt(0, 1_000_000)).padStart(6, '0'), method: method!, sentAt, wrongAttempts: 0 };
    return { id: s.id, method, accepted: sentAt, verificationCodeSent: true };
  });

  app.post<{ Params: Params }>(`${base}/:senderId/verify`, { preValidation }, async (request) => {
    const f = fields();
    const body = f.body(request.body, ['code']);
    const code = f.string(body, 'code', '', { required: true, pattern: /^\S{6}$/, patternText: 'must be exactly 6 characters with no spaces' });
    f.check();
    const s = find(request.params);
    awaitingVerification(s);
    if (!s.verification)
      throw new ProvisioningError(409, 'conflict', `no verification code was requested for CHATA sender ${s.id}`, {
        resolution: 'Request a code with POST .../register first.',
      });
    if (code !== s.verification.code) {
      s.verification.wrongAttempts += 1;
      throw new ProvisioningError(400, 'wrong_otp', 'The verification code is wrong', {
        resolution: 'Send the code the number received, or request a new one.',
        additionalInformation: { senderId: s.id },
      });
    }
    delete s.verification;
    verified(request.params.projectId, s);
    return s;
  });
}

/** GET /_sandbox/provisioning/chata-senders/:senderId/verification: the code last sent, as the phone got it. */
export function chataVerificationControl(app: FastifyInstance, find: (senderId: string) => ChataSender | undefined): void {
  app.get<{ Params: { senderId: string } }>('/chata-senders/:senderId/verification', async (request) => {
    const s = find(request.params.senderId);
    if (!s) throw notFound('CHATA sender', request.params.senderId);
    if (!s.verification) throw notFound('Verification code of CHATA sender', s.id);
    return s.verification;
  });
}
