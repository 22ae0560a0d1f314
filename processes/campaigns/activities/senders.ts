// How one recipient is sent, per campaign kind, and how a send whose answer was lost is looked up. The
// conversation API can list sent messages by their metadata; MMS cannot, so an MMS in doubt waits for a
// postback carrying its client-reference instead (store.recordReport settles it).
import type { SendChunkInput } from '../contract.js';
import type { PlatformClients } from '../../../platform/index.js';
import { toMmsNumber } from '../../../platform/mms/rules.js';
import type { ClaimedRecipient } from '../../../store/index.js';
import { fillPlaceholders } from '../placeholders.js';

/** Only the values the template asks for reach the platform: a recipient's other params stay in the store. */
function pick(params: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => params[n] !== undefined).map((n) => [n, params[n]!]));
}

export interface MessageSender {
  send(row: ClaimedRecipient, token: string): Promise<{ platformId: string }>;
  /** The platform's message ID when it has the message, undefined when it has not. Absent: the platform cannot tell. */
  lookup?(row: ClaimedRecipient, token: string): Promise<string | undefined>;
  /**
   * The share of the campaign's rate its schedule keeps (1 when absent). Conversation: 1, the app's rate is the pace its
   * MT queue drains at, and a send a little early waits in the queue (spec Limits). MMS: 0.95, the account's throughput
   * is a refusal (E113) counted over a second, which the requests meet with network and event-loop jitter.
   */
  share?: number;
}

const MMS_SHARE = 0.95;

export function senderFor(clients: Pick<PlatformClients, 'conversation' | 'mms'>, input: SendChunkInput): MessageSender {
  if (input.conversation) {
    const c = input.conversation;
    const conversation = clients.conversation.forProject(c.projectId);
    return {
      send: async (row, token) => {
        const params = row.params ?? {};
        const r = await conversation.sendMessage(c.region, {
          appId: c.appId,
          channel: c.channel,
          identity: row.recipient,
          metadata: token,
          ...(c.text !== undefined ? { text: fillPlaceholders(c.text, params) } : {}),
          ...(c.mediaUrl !== undefined ? { mediaUrl: c.mediaUrl } : {}),
          ...(c.template ? { template: { name: c.template.name, language: c.template.language, parameters: pick(params, c.template.placeholders) } } : {}),
        });
        return { platformId: r.messageId };
      },
      lookup: (row, token) => conversation.findSentByMetadata(c.region, { appId: c.appId, channel: c.channel, identity: row.recipient, metadata: token }),
    };
  }
  if (input.mms) {
    const m = input.mms;
    const display = m.toDisplayOnly ? { toDisplayOnly: m.toDisplayOnly } : {};
    return {
      send: async (row, token) => {
        const to = toMmsNumber(row.recipient);
        const r = m.savedMmsId
          ? await clients.mms.sendSaved({ to, mmsId: m.savedMmsId, serviceId: m.serviceId, clientReference: token, ...display })
          : await clients.mms.send({ to, message: mmsMessageOf(m), clientReference: token, ...display });
        return { platformId: r.trackingId };
      },
      share: MMS_SHARE,
    };
  }
  throw new Error(`campaign ${input.campaignId}: neither conversation nor mms content`);
}

/** The campaign's MMS content as the client takes it (the same fields, without relayflow's own options). */
export function mmsMessageOf(m: NonNullable<SendChunkInput['mms']>) {
  const { toDisplayOnly: _d, useSavedTemplate: _u, savedMmsId: _s, ...message } = m;
  return message;
}
