// The three ways the platform signs its callbacks; an area picks one when it dispatches.
import { randomBytes } from 'node:crypto';
import { CONVERSATION_WEBHOOK_HEADERS, conversationWebhookSignature, hmacSha1Hex, signApplicationRequest } from '../../common/signing.js';
import type { CallbackSigner } from './callbacks.js';

/** Verification and voice callbacks: `Authorization: Application key:sig`, signed over the callback URL's path. */
export function applicationCallbackSigner(appKey: string, appSecretBase64: string): CallbackSigner {
  return ({ method, path, rawBody, contentType }) => signApplicationRequest({ appKey, appSecret: appSecretBase64, method, path, contentType, body: rawBody });
}

/** Conversation webhooks: HMAC-SHA256 over `<raw body>.<nonce>.<timestamp>`, base64, secret as UTF-8. */
export function conversationWebhookSigner(secret: string, now: () => number = Date.now): CallbackSigner {
  return ({ rawBody }) => {
    const nonce = randomBytes(16).toString('hex');
    const timestamp = String(Math.floor(now() / 1000));
    const h = CONVERSATION_WEBHOOK_HEADERS;
    return {
      [h.signature]: conversationWebhookSignature(secret, rawBody, nonce, timestamp),
      [h.nonce]: nonce,
      [h.timestamp]: timestamp,
      [h.algorithm]: 'HmacSHA256',
    };
  };
}

/** Sender ID registration callbacks: `X-Service-Signature` = hex HMAC-SHA1 of the raw body. */
export function senderIdCallbackSigner(hmacSecret: string): CallbackSigner {
  return ({ rawBody }) => ({ 'x-service-signature': hmacSha1Hex(hmacSecret, rawBody) });
}
