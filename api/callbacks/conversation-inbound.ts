// Replies (MESSAGE_INBOUND, docs/conversation-wire.md "Inbound messages"): a reply that is, whole, an opt-out word
// puts its sender's number on the app's suppression list, an opt-in word takes it off (store/suppressions.ts), and
// any other reply is counted and dropped (relayflow keeps no conversation). The reply's own time decides between
// a STOP and a START, whatever order their webhooks arrive in. Neither the number nor the text is ever logged.
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { Counter } from 'prom-client';
import { normaliseReply, type ConsentSettings } from '../../common/config/consent.js';
import type { SuppressionStore } from '../../store/suppressions.js';
import { registry } from '../metrics/series.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

type ReplyIntent = 'opt_out' | 'opt_in' | 'other';

export interface InboundReply {
  appId: string;
  /** E.164; absent when the sender's identity on its channel is not a phone number. */
  number?: string;
  intent: ReplyIntent;
  /** The reply's time on the platform (ISO). */
  at: string;
}

/** Replies by what they did: opt_out, opt_in (applied), stale (older than the number's last change), other, not_a_number. */
const inboundReplies = new Counter({
  name: 'relayflow_inbound_replies_total',
  help: 'Replies received through the conversation webhooks, by outcome (opt_out, opt_in, stale, other, not_a_number)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** The reply in a MESSAGE_INBOUND body, or why it is not one relayflow reads. */
export function readInbound(body: Obj, consent: ConsentSettings): { eventId: string; reply: InboundReply } | { ignored: string } {
  const message = obj(body.message);
  if (!message) return { ignored: 'not an inbound message' };
  // TO_CONTACT would be an echo of what the app sent (public reference: direction); only replies count.
  if (message.direction !== undefined && message.direction !== 'TO_APP') return { ignored: 'not a message from a contact' };
  const id = str(message.id);
  const appId = str(body.app_id);
  if (!id || !appId) return { ignored: 'an inbound message without message.id or app_id' };
  const identity = str(obj(message.channel_identity)?.identity) ?? '';
  // SMS and the chat channels give the MSISDN with or without its + (wire notes: identities); anything else is not a number.
  const parsed = /^\+?\d{6,15}$/.test(identity) ? parsePhoneNumberFromString(identity.startsWith('+') ? identity : `+${identity}`) : undefined;
  const text = str(obj(obj(message.contact_message)?.text_message)?.text);
  const at = str(message.accept_time) ?? str(body.accepted_time) ?? str(body.event_time) ?? new Date().toISOString();
  return {
    eventId: `inbound|${id}`,
    reply: { appId, ...(parsed?.isValid() ? { number: parsed.number } : {}), intent: intentOf(text, consent), at: new Date(at).toISOString() },
  };
}

function intentOf(text: string | undefined, consent: ConsentSettings): ReplyIntent {
  if (text === undefined) return 'other';
  const word = normaliseReply(text);
  if (consent.optOutWords.includes(word)) return 'opt_out';
  if (consent.optInWords.includes(word)) return 'opt_in';
  return 'other';
}

/** Applies the reply to the app's list; answers what it did. */
export async function handReply(reply: InboundReply, suppressions: SuppressionStore): Promise<{ outcome: string; suppressed?: boolean }> {
  if (reply.intent === 'other' || !reply.number) {
    const outcome = reply.intent === 'other' ? 'other' : 'not_a_number';
    inboundReplies.inc({ outcome });
    return { outcome };
  }
  const r = await suppressions.apply({ appId: reply.appId, number: reply.number, suppressed: reply.intent === 'opt_out', source: 'reply', at: reply.at });
  const outcome = r.applied ? reply.intent : 'stale';
  inboundReplies.inc({ outcome });
  return { outcome, suppressed: r.suppressed };
}
