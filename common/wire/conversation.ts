// Wire shapes, once, so client and sandbox cannot drift: the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records (which
// extend these), so it stays an independent check. Here: conversation messaging (area D), docs/conversation-wire.md.

/** Trigger names a webhook may subscribe to (the spec's and the public reference's). */
export const CONVERSATION_TRIGGERS = [
  'MESSAGE_DELIVERY',
  'MESSAGE_INBOUND',
  'MESSAGE_SUBMIT',
  'EVENT_DELIVERY',
  'EVENT_INBOUND',
  'CONVERSATION_START',
  'CONVERSATION_STOP',
  'CONVERSATION_DELETE',
  'CONTACT_CREATE',
  'CONTACT_DELETE',
  'CONTACT_MERGE',
  'CONTACT_UPDATE',
  'CONTACT_IDENTITIES_DUPLICATION',
  'CAPABILITY',
  'OPT_IN',
  'OPT_OUT',
  'UNSUPPORTED',
  'SMART_CONVERSATION',
  'BATCH_STATUS_UPDATE',
  'BILLING_CREDIT_LIMIT_BREACHED',
  'CONSENT_BATCH_COMPLETE',
  'MESSAGE_INBOUND_SMART_CONVERSATION_REDACTION',
] as const;

/** `message_delivery_report.status`; DELIVERED, READ and FAILED are final. */
export type DeliveryStatus = 'QUEUED_ON_CHANNEL' | 'DELIVERED' | 'READ' | 'FAILED' | 'SWITCHING_CHANNEL';

export interface WireApp {
  id: string;
  display_name: string;
  region: 'US' | 'EU' | 'BR';
  channel_credentials: { channel: string }[];
  rate_limits: { outbound: number; inbound: number; webhooks: number };
}

/** A sent message as the platform lists it; relayflow reads only `id` and `metadata`, so the rest may be missing. */
export interface WireMessage {
  id: string;
  direction?: 'TO_CONTACT';
  /** The `message` object exactly as sent. */
  app_message?: Record<string, unknown>;
  channel_identity?: { channel: string; identity: string; app_id?: string };
  conversation_id?: string;
  contact_id?: string;
  metadata?: string;
  accept_time?: string;
}

export interface WireWebhook {
  id: string;
  app_id: string;
  target: string;
  target_type?: string;
  secret?: string;
  triggers: string[];
}
