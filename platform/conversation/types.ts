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
  /** A chat channel's own template (CHATA, CHATB), by name and language, with its parameters' values. */
  template?: TemplateReference;
  /** Ours: `rf:<campaignId>:<seq>`, how a lost answer is found again. */
  metadata?: string;
  correlationId?: string;
}

export interface SentMessage {
  messageId: string;
  acceptedTime: string;
}

interface TemplateReference {
  /** The template's name: a channel's own template is named, not numbered, on the wire (public reference). */
  name: string;
  /** Underscored, such as en_US. */
  language: string;
  parameters: Record<string, string>;
}
