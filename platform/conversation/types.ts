// Conversation API shapes of relayflow's own (camelCase). The wire's (snake_case, docs/conversation-wire.md) are in
// common/wire/conversation.ts, shared with the sandbox.

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
