// Business-keyed workflow IDs, one builder per process, so callbacks route to workflows without a lookup table.
export const PROCESS_KINDS = [
  'subproject',
  'verification',
  'sdk-verification',
  'chata-template',
  'chatb-template',
  'rcs-sender',
  'chata-sender',
  'chatb-sender',
  'senderid-registration',
  'conversation-campaign',
  'mms-campaign',
  'voice-callout',
  'voice-incoming',
  'bundle-provisioning',
  'onboarding',
] as const;
export type ProcessKind = (typeof PROCESS_KINDS)[number];

export const workflowIds = {
  subproject: (parentProjectId: string, displayName: string) => `subproject:${parentProjectId}:${displayName}`,
  /** `id` is a ULID; the routing tokens of the process are `rf-<id>.<step>.<send>`. */
  verification: (id: string) => `verification:${id}`,
  /** A verification relayflow did not start (an SDK's), adopted by the platform's verification ID from its callbacks. */
  'sdk-verification': (verificationId: string) => `sdk-verification:${verificationId}`,
  // Provisioning (area G): one process per platform resource, keyed by what the caller names it by.
  'chata-template': (projectId: string, name: string, language: string) => `chata-template:${projectId}:${name}:${language}`,
  'chatb-template': (projectId: string, name: string, language: string) => `chatb-template:${projectId}:${name}:${language}`,
  'rcs-sender': (projectId: string, displayName: string) => `rcs-sender:${projectId}:${displayName}`,
  /** `senderKey`: the phone number's digits, or `pnid-<phoneNumberId>` for embedded sign-up (IDs are digits too). */
  /** `senderKey`: the keyed hash of the phone number (common/subject-hash.ts), or `pnid-<phoneNumberId>`. */
  'chata-sender': (projectId: string, senderKey: string) => `chata-sender:${projectId}:${senderKey}`,
  'chatb-sender': (projectId: string, displayName: string) => `chatb-sender:${projectId}:${displayName}`,
  /**
   * Sender ID registration (area F). Business key: the caller's registration key (1..64 of [A-Za-z0-9._-]), not
   * marketCode + senderId: long numbers and short codes have no sender ID until the platform assigns one, and a
   * sender ID is a brand name, which must stay out of workflow IDs. The same key is tagged on the platform's
   * registration (senderIdKeyTag) so a retried create finds it. A registration relayflow did not create (a
   * callback for an unknown one) is adopted under `reg-<registrationId>` (senderIdAdoptedKey); caller keys
   * cannot start with `reg-`.
   */
  'senderid-registration': (projectId: string, registrationKey: string) => `senderid-registration:${projectId}:${registrationKey}`,
  /** Batch sends (areas C, D): keyed by the caller's campaign key (CAMPAIGN_KEY_PATTERN), or a ULID when none is given. */
  'conversation-campaign': (projectId: string, key: string) => `conversation-campaign:${projectId}:${key}`,
  'mms-campaign': (projectId: string, key: string) => `mms-campaign:${projectId}:${key}`,
  /** Voice (area A): a callout by the caller's key (CAMPAIGN_KEY_PATTERN) or a ULID; an incoming call by the platform's call ID. */
  'voice-callout': (key: string) => `voice-callout:${key}`,
  'voice-incoming': (callId: string) => `voice-incoming:${callId}`,
  /** Bundle provisioning (area G): keyed by the caller's bundle key (CAMPAIGN_KEY_PATTERN). */
  'bundle-provisioning': (projectId: string, key: string) => `bundle-provisioning:${projectId}:${key}`,
  /** Customer onboarding: keyed by the caller's onboarding key (CAMPAIGN_KEY_PATTERN). */
  onboarding: (projectId: string, key: string) => `onboarding:${projectId}:${key}`,
  /** Every webhook event of one platform resource lands here first (workflows/provisioning/resource-inbox.ts). */
  resourceInbox: (channel: string, resourceType: string, resourceId: string) => `resource:${channel}:${resourceType}:${resourceId}`,
} satisfies Record<ProcessKind | 'resourceInbox', (...parts: string[]) => string>;

/** The kind a workflow ID belongs to, from its prefix; undefined for IDs relayflow did not make. */
export function kindOfWorkflowId(workflowId: string): ProcessKind | undefined {
  const prefix = workflowId.split(':', 1)[0];
  return (PROCESS_KINDS as readonly string[]).includes(prefix ?? '') ? (prefix as ProcessKind) : undefined;
}

/** The verification process a routing token (`rf-<ULID>.<step>.<send>`) belongs to. */
function verificationIdOfReference(token: string | undefined): string | undefined {
  const m = /^rf-([0-9A-HJKMNP-TV-Z]{26})\.\d+\.\d+$/.exec(token ?? '');
  return m ? workflowIds.verification(m[1]!) : undefined;
}

/**
 * The verification process a platform event belongs to: by the token in `custom`, else in `reference`
 * (processes started before the token moved to `custom`).
 */
export const verificationIdOfEvent = (e: { custom?: string | undefined; reference?: string | undefined }) =>
  verificationIdOfReference(e.custom) ?? verificationIdOfReference(e.reference);

/** The key of a registration adopted from a callback (relayflow did not create it). */
export const senderIdAdoptedKey = (registrationId: string) => `reg-${registrationId}`;

/** The tag relayflow puts on the platform's registration: how a retried create recognises its own. */
export const senderIdKeyTag = (registrationKey: string) => `relayflow-key:${registrationKey}`;

/** A caller's campaign key: 1..64 of [A-Za-z0-9._-]. The same key always answers the same campaign, ended or not. */
export const CAMPAIGN_KEY_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
