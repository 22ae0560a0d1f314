// The two addresses only the sandbox takes through its control routes (npm start and npm run cluster): where
// sender ID callbacks go (registrations carry no callbackUrl here) and the MMS account's postback URL. The workers set the rest at start
// (workers/callbacks.ts: the provisioning webhook, the verification callback URL, the sender ID secret, voice).
import { MMS_POSTBACK_PATH, SENDERID_CALLBACK_PATH } from '../../contracts/callbacks.js';

export async function pointSandboxAt(opts: { sandboxUrl: string; publicUrl: string; mmsPostbackToken: string }): Promise<void> {
  const settings: Array<[route: string, body: object]> = [
    ['/_sandbox/senderid/callback-url', { url: `${opts.publicUrl}${SENDERID_CALLBACK_PATH}` }],
    ['/_sandbox/mms/account', { postbackUrl: `${opts.publicUrl}${MMS_POSTBACK_PATH}/${opts.mmsPostbackToken}` }],
  ];
  for (const [route, body] of settings) {
    const answer = await fetch(`${opts.sandboxUrl}${route}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!answer.ok) throw new Error(`the sandbox refused ${route}: ${answer.status} ${await answer.text()}`);
  }
}
