// The secrets of the platform's callbacks to relayflow: against the sandbox each has a fixed development value;
// against the real platform an unset one makes its intake refuse every delivery.
import Type, { type Static } from 'typebox';
import type { PreviousSecret } from '../secret-rotation.js';
import { ConfigError, type Problems } from './errors.js';
import { optionalText, secret } from './fields.js';

export const SANDBOX_PROVISIONING_WEBHOOK_SECRET = 'sandbox-provisioning-webhook-secret';
export const SANDBOX_CONVERSATION_WEBHOOK_SECRET = 'sandbox-conversation-webhook-secret';
const SANDBOX_MMS_POSTBACK_TOKEN = 'sandbox-mms-postback-token';
/** The sandbox signs with a well-known development secret; for the real platform it must be set. */
const SANDBOX_SENDERID_CALLBACK_SECRET = 'sandbox-senderid-callback-secret';

/** The longest a previous provisioning webhook secret may stay accepted, counted from the start of the process. */
const MAX_PREVIOUS_SECRET_WINDOW_MS = 30 * 86_400_000;

const PLATFORM_MIN = 'must be 8 to 256 characters (the platform requires at least 8)';
const SANDBOX_SECRET = 'sandbox: a fixed dev secret';

export const CALLBACK_VARIABLES = Type.Object({
  RELAYFLOW_PROVISIONING_WEBHOOK_SECRET: secret("the secret of relayflow's provisioning webhook (required with the real platform)", 8, 256, {
    'x-rule': PLATFORM_MIN,
    'x-default': SANDBOX_SECRET,
  }),
  RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET: secret(
    "during a rotation, the secret the platform signed provisioning webhooks with before: deliveries signed with it are still accepted until `..._UNTIL`, and each worker start gives the platform's webhook the current secret ([provisioning-wire.md, Rotating the secret](provisioning-wire.md#rotating-the-secret))",
    8,
    256,
    { 'x-rule': PLATFORM_MIN },
  ),
  RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'the time (ISO 8601, e.g. `2026-05-01T12:00:00Z`, at most 30 days ahead) until which the previous secret is accepted; after it such deliveries are refused (401). A fixed time, so every replica and restart ends the window at once',
      'x-default': 'none (required with the previous secret)',
    }),
  ),
  RELAYFLOW_SENDERID_CALLBACK_SECRETS: optionalText(
    "comma-separated, current first: sender ID callbacks signed with any of them are accepted; the worker sets the platform's secret to the first",
    { 'x-rule': 'each secret must have 1..256 characters', 'x-default': SANDBOX_SECRET, 'x-secret': true },
  ),
  RELAYFLOW_SENDERID_CALLBACK_SECRET: secret('one sender ID callback secret, when `RELAYFLOW_SENDERID_CALLBACK_SECRETS` is unset', 1, 256, {
    'x-rule': 'each secret must have 1..256 characters',
    'x-default': SANDBOX_SECRET,
  }),
  RELAYFLOW_CONVERSATION_WEBHOOK_SECRET: secret("the conversation webhook's HMAC secret (required with the real platform)", 8, 256, {
    'x-default': SANDBOX_SECRET,
  }),
  RELAYFLOW_MMS_POSTBACK_TOKEN: secret(
    'the secret path segment of the MMS postback URL (`/callbacks/mms/<token>`; MMS postbacks are not signed): letters, digits, - and _',
    16,
    256,
    { pattern: '^[A-Za-z0-9_-]+$', 'x-rule': 'must be 16 to 256 characters, URL-safe: letters, digits, - and _', 'x-default': 'sandbox: a fixed dev token' },
  ),
});
type CallbackVars = Static<typeof CALLBACK_VARIABLES>;

/** RELAYFLOW_SENDERID_CALLBACK_SECRETS (current first) or RELAYFLOW_SENDERID_CALLBACK_SECRET; none: the intake refuses every callback. */
function senderIdCallbackSecrets(v: CallbackVars, sandbox: boolean): string[] {
  if (v.RELAYFLOW_SENDERID_CALLBACK_SECRETS) {
    const secrets = v.RELAYFLOW_SENDERID_CALLBACK_SECRETS.split(',').map((x) => x.trim());
    if (secrets.some((s) => s.length < 1 || s.length > 256))
      throw new ConfigError('RELAYFLOW_SENDERID_CALLBACK_SECRETS', 'each secret must have 1..256 characters');
    return secrets;
  }
  if (v.RELAYFLOW_SENDERID_CALLBACK_SECRET) return [v.RELAYFLOW_SENDERID_CALLBACK_SECRET];
  return sandbox ? [SANDBOX_SENDERID_CALLBACK_SECRET] : [];
}

/** The previous provisioning webhook secret needs its end: a fixed time, the same for every replica and restart, so a rotation always ends. */
function previousWebhookSecret(v: CallbackVars, now = Date.now()): PreviousSecret | undefined {
  const name = 'RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET';
  const untilName = `${name}_UNTIL`;
  const secret = v.RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET;
  const until = v.RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL;
  if (!secret) {
    if (until) throw new ConfigError(untilName, `is set without ${name}`);
    return undefined;
  }
  if (!until) throw new ConfigError(untilName, `is required with ${name}: the time (ISO 8601) until which the previous secret is accepted`);
  const untilMs = Date.parse(until);
  if (untilMs - now > MAX_PREVIOUS_SECRET_WINDOW_MS) throw new ConfigError(untilName, 'must be at most 30 days ahead');
  return { secret, untilMs };
}

export function loadCallbackSecrets(v: CallbackVars, sandbox: boolean, problems: Problems) {
  const previous = ['RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET', 'RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL'];
  return {
    provisioningWebhookSecret: v.RELAYFLOW_PROVISIONING_WEBHOOK_SECRET ?? (sandbox ? SANDBOX_PROVISIONING_WEBHOOK_SECRET : undefined),
    provisioningWebhookPreviousSecret: problems.check(previous, () => previousWebhookSecret(v), undefined),
    senderIdCallbackSecrets: problems.check(['RELAYFLOW_SENDERID_CALLBACK_SECRETS'], () => senderIdCallbackSecrets(v, sandbox), []),
    conversationWebhookSecret: v.RELAYFLOW_CONVERSATION_WEBHOOK_SECRET ?? (sandbox ? SANDBOX_CONVERSATION_WEBHOOK_SECRET : undefined),
    mmsPostbackToken: v.RELAYFLOW_MMS_POSTBACK_TOKEN ?? (sandbox ? SANDBOX_MMS_POSTBACK_TOKEN : undefined),
  };
}
