// Conversation API shapes relayflow uses (docs/conversation-wire.md), on the wire (snake_case) and ours.

export interface ConversationApp {
  id: string;
  displayName: string;
  region: string;
  /** Messages per second the app may send (rate_limits.outbound; the platform's default is 20). */
  outboundRate: number;
}

export interface SendMessageRequest {
  appId: string;
  channel: string;
  identity: string;
  text?: string;
  mediaUrl?: string;
  /** Ours: `rf:<campaignId>:<seq>`, how a lost answer is found again. */
  metadata?: string;
  correlationId?: string;
}

export interface SentMessage {
  messageId: string;
  acceptedTime: string;
}

export interface WireMessage {
  id: string;
  metadata?: string;
  channel_identity?: { channel: string; identity: string; app_id?: string };
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
