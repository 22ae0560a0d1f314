// The conversation area's resources as the sandbox keeps them (docs/conversation-wire.md), and their views in the
// wire's shapes (common/wire/conversation.ts, shared with relayflow's client).
import type { Region } from '../../../common/config.js';
import type { DeliveryStatus, WireApp, WireMessage, WireWebhook } from '../../../common/wire/conversation.js';

/** Channels relayflow uses; anything else in a request is a 400 naming the field. */
export const CHANNELS = ['SMS', 'RCS', 'CHATA', 'CHATB', 'MMS'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Default of `rate_limits.outbound` (spec Limits: 20 messages per second). */
export const DEFAULT_OUTBOUND_RATE = 20;
/** Spec Limits: an app's MT ingress queue holds at most 500,000 messages. */
export const DEFAULT_QUEUE_CAPACITY = 500_000;
/** At most 5 webhooks per app (public reference). */
export const MAX_WEBHOOKS_PER_APP = 5;

export interface App {
  id: string;
  projectId: string;
  region: Region;
  displayName: string;
  channelCredentials: { channel: string }[];
  outboundRate: number;
  createdAt: string;
}

export interface ChannelIdentity {
  channel: Channel;
  identity: string;
}

export interface Contact {
  id: string;
  projectId: string;
  identities: ChannelIdentity[];
}

export interface Message {
  id: string;
  projectId: string;
  appId: string;
  /** The `message` object exactly as sent. */
  appMessage: Record<string, unknown>;
  channel: Channel;
  identity: string;
  contactId: string;
  conversationId: string;
  metadata: string;
  correlationId: string;
  acceptedTime: string;
  /** The latest delivery status reported (internal; the wire Message does not carry it). */
  status: 'ACCEPTED' | DeliveryStatus;
  /** A template message as the channel shows it: the template's text with its parameters filled in (internal). */
  rendered?: string;
  /** While QUEUED_ON_CHANNEL: epoch ms of its final report (internal; a restored sandbox reschedules it). */
  finalAt?: number;
}

export interface Webhook {
  id: string;
  projectId: string;
  appId: string;
  target: string;
  targetType: 'HTTP';
  secret: string;
  triggers: string[];
}

export const REGION_NAMES: Record<Region, 'US' | 'EU' | 'BR'> = { us: 'US', eu: 'EU', br: 'BR' };

/** App as the wire shows it. */
export function appView(a: App): WireApp {
  return {
    id: a.id,
    display_name: a.displayName,
    region: REGION_NAMES[a.region],
    channel_credentials: a.channelCredentials.map((c) => ({ ...c })),
    rate_limits: { outbound: a.outboundRate, inbound: 100, webhooks: 100 },
  };
}

export function messageView(m: Message): WireMessage {
  return {
    id: m.id,
    direction: 'TO_CONTACT',
    app_message: m.appMessage,
    channel_identity: { channel: m.channel, identity: m.identity, app_id: m.appId },
    conversation_id: m.conversationId,
    contact_id: m.contactId,
    metadata: m.metadata,
    accept_time: m.acceptedTime,
  };
}

export function webhookView(w: Webhook): WireWebhook {
  return { id: w.id, app_id: w.appId, target: w.target, target_type: w.targetType, secret: w.secret, triggers: [...w.triggers] };
}

/** ULIDs: 26 Crockford base32 characters, the first at most 7 (48-bit time). */
export const ULID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;
