// A phone that replies (docs/conversation-wire.md "Inbound messages"): a control route has a contact send the app a
// text, and the platform's MESSAGE_INBOUND webhook goes to every webhook of the app subscribed to it, signed with
// that webhook's secret, through the area's callback hub (retries, and the webhook faults: drop, duplicate, delay).
// Nothing is kept: a reply is an event, not a message the app's lists show.
import type { CallbackFate, CallbackHub } from '../../core/callback-hub.js';
import { conversationWebhookSigner } from '../../core/callback-signers.js';
import type { App, Channel } from './model.js';
import type { ConversationStore } from './store.js';

export interface InboundCounts {
  /** Replies made. */
  made: number;
  /** Replies made while no webhook of the app subscribed to MESSAGE_INBOUND. */
  unsubscribed: number;
  dropped: number;
  duplicated: number;
}

const newCounts = (): InboundCounts => ({ made: 0, unsubscribed: 0, dropped: 0, duplicated: 0 });

export class InboundHub {
  counts = newCounts();

  constructor(
    private readonly store: ConversationStore,
    private readonly hub: CallbackHub,
  ) {}

  /** The contact `identity` sends `text` to the app on `channel`; answers the inbound message's ID. */
  reply(app: App, channel: Channel, identity: string, text: string, at = new Date()): { messageId: string; acceptedTime: string } {
    this.counts.made++;
    const contact = this.store.contactFor(app.projectId, [{ channel, identity }]);
    const id = this.store.newId();
    const time = at.toISOString();
    const body = {
      app_id: app.id,
      accepted_time: time,
      event_time: time,
      project_id: app.projectId,
      message: {
        id,
        direction: 'TO_APP',
        contact_message: { text_message: { text } },
        channel_identity: { channel, identity, app_id: app.id },
        conversation_id: this.store.conversationFor(app.id, contact.id),
        contact_id: contact.id,
        metadata: '',
        accept_time: time,
        processing_mode: 'CONVERSATION',
      },
      message_metadata: '',
      correlation_id: '',
    };
    const subscribers = this.store.webhooksOf(app.id).filter((w) => w.triggers.includes('MESSAGE_INBOUND'));
    if (subscribers.length === 0) this.counts.unsubscribed++;
    const fate: CallbackFate = { delivery: 'none', duplicated: false, reordered: false, delayMs: 0 };
    this.hub.send({
      fate,
      key: id,
      body,
      targets: subscribers.map((w) => ({ id: w.id, url: w.target, signer: conversationWebhookSigner(w.secret) })),
      holdable: false,
    });
    if (fate.delivery === 'dropped') this.counts.dropped++;
    if (fate.duplicated) this.counts.duplicated++;
    return { messageId: id, acceptedTime: time };
  }

  reset(): void {
    this.counts = newCounts();
  }
}
