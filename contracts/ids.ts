// The business keys relayflow puts into workflow IDs and onto platform resources (the ID builders are each kind's
// descriptor's: processes/<family>/<kind>/kind.ts).

/** The key of a registration adopted from a callback (relayflow did not create it). */
export const senderIdAdoptedKey = (registrationId: string) => `reg-${registrationId}`;

/** The tag relayflow puts on the platform's registration: how a retried create recognises its own. */
export const senderIdKeyTag = (registrationKey: string) => `relayflow-key:${registrationKey}`;

/** A caller's campaign key: 1..64 of [A-Za-z0-9._-]. The same key always answers the same campaign, ended or not. */
export const CAMPAIGN_KEY_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
