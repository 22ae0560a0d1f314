// Business-keyed workflow IDs, one builder per process, so callbacks route to workflows without a lookup table.
export const PROCESS_KINDS = ['subproject', 'verification', 'chata-template', 'chatb-template', 'rcs-sender', 'chata-sender', 'chatb-sender'] as const;
export type ProcessKind = (typeof PROCESS_KINDS)[number];

export const workflowIds = {
  subproject: (parentProjectId: string, displayName: string) => `subproject:${parentProjectId}:${displayName}`,
  /** `id` is a ULID; the routing tokens of the process are `rf-<id>.<step>.<send>`. */
  verification: (id: string) => `verification:${id}`,
  /** `subjectHash` from common/subject-hash.ts: never the number itself. */
  numberGuard: (subjectHash: string) => `number-guard:${subjectHash}`,
  // Provisioning (area G): one process per platform resource, keyed by what the caller names it by.
  'chata-template': (projectId: string, name: string, language: string) => `chata-template:${projectId}:${name}:${language}`,
  'chatb-template': (projectId: string, name: string, language: string) => `chatb-template:${projectId}:${name}:${language}`,
  'rcs-sender': (projectId: string, displayName: string) => `rcs-sender:${projectId}:${displayName}`,
  /** `senderKey`: the phone number's digits, or `pnid-<phoneNumberId>` for embedded sign-up (IDs are digits too). */
  /** `senderKey`: the keyed hash of the phone number (common/subject-hash.ts), or `pnid-<phoneNumberId>`. */
  'chata-sender': (projectId: string, senderKey: string) => `chata-sender:${projectId}:${senderKey}`,
  'chatb-sender': (projectId: string, displayName: string) => `chatb-sender:${projectId}:${displayName}`,
  /** Every webhook event of one platform resource lands here first (workflows/provisioning/resource-inbox.ts). */
  resourceInbox: (channel: string, resourceType: string, resourceId: string) => `resource:${channel}:${resourceType}:${resourceId}`,
} satisfies Record<ProcessKind | 'numberGuard' | 'resourceInbox', (...parts: string[]) => string>;

/** The kind a workflow ID belongs to, from its prefix; undefined for IDs relayflow did not make. */
export function kindOfWorkflowId(workflowId: string): ProcessKind | undefined {
  const prefix = workflowId.split(':', 1)[0];
  return (PROCESS_KINDS as readonly string[]).includes(prefix ?? '') ? (prefix as ProcessKind) : undefined;
}

/** The verification process a routing token (`rf-<ULID>.<step>.<send>`) belongs to. */
export function verificationIdOfReference(token: string | undefined): string | undefined {
  const m = /^rf-([0-9A-HJKMNP-TV-Z]{26})\.\d+\.\d+$/.exec(token ?? '');
  return m ? workflowIds.verification(m[1]!) : undefined;
}

/**
 * The verification process a platform event belongs to: by the token in `custom`, else in `reference`
 * (processes started before the token moved to `custom`).
 */
export const verificationIdOfEvent = (e: { custom?: string | undefined; reference?: string | undefined }) =>
  verificationIdOfReference(e.custom) ?? verificationIdOfReference(e.reference);
