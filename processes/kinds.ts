// The one list of process kinds. Everything that lists kinds, pairs a kind with its workflow type or family, or
// says what a kind's state means is derived from these descriptors: add a kind here and it is listed, counted,
// tagged and served.
import { campaignsFamily } from './campaigns/family.js';
import { conversationCampaign } from './campaigns/conversation-campaign/kind.js';
import { mmsCampaign } from './campaigns/mms-campaign/kind.js';
import type { FamilyName, ProcessDescriptor } from './descriptor.js';
import { onboardingFamily } from './onboarding/family.js';
import { onboarding } from './onboarding/onboarding/kind.js';
import { bundleProvisioning } from './provisioning/bundle-provisioning/kind.js';
import { chataSender } from './provisioning/chata-sender/kind.js';
import { chataTemplate } from './provisioning/chata-template/kind.js';
import { chatbSender } from './provisioning/chatb-sender/kind.js';
import { chatbTemplate } from './provisioning/chatb-template/kind.js';
import { provisioningFamily } from './provisioning/family.js';
import { rcsSender } from './provisioning/rcs-sender/kind.js';
import { senderidFamily } from './senderid/family.js';
import { senderIdRegistration } from './senderid/senderid-registration/kind.js';
import { subprojectsFamily } from './subprojects/family.js';
import { subproject } from './subprojects/subproject/kind.js';
import { verificationFamily } from './verification/family.js';
import { sdkVerification } from './verification/sdk-verification/kind.js';
import { verification } from './verification/verification/kind.js';
import { voiceFamily } from './voice/family.js';
import { voiceCallout } from './voice/voice-callout/kind.js';
import { voiceIncoming } from './voice/voice-incoming/kind.js';

/** Every kind, in the order lists and counts show them. */
const KINDS = [
  subproject,
  verification,
  sdkVerification,
  chataTemplate,
  chatbTemplate,
  rcsSender,
  chataSender,
  chatbSender,
  senderIdRegistration,
  conversationCampaign,
  mmsCampaign,
  voiceCallout,
  voiceIncoming,
  bundleProvisioning,
  onboarding,
] as const;

export type ProcessKind = (typeof KINDS)[number]['kind'];
export const PROCESS_KINDS: readonly ProcessKind[] = KINDS.map((d) => d.kind);

/** The same list, each as the common descriptor shape. */
export const DESCRIPTORS: readonly ProcessDescriptor<ProcessKind>[] = KINDS;

type Descriptors = (typeof KINDS)[number];
type IdBuilders = { [D in Descriptors as D['kind']]: D['id'] };

/** Business-keyed workflow IDs, one builder per kind (and the resource inbox's), so callbacks route without a lookup. */
export const workflowIds = {
  ...(Object.fromEntries(KINDS.map((d) => [d.kind, d.id])) as IdBuilders),
  /** Every webhook event of one platform resource lands here first (processes/provisioning/workflow/resource-inbox.ts). */
  resourceInbox: (channel: string, resourceType: string, resourceId: string) => `resource:${channel}:${resourceType}:${resourceId}`,
};

const BY_KIND = new Map<string, ProcessDescriptor<ProcessKind>>(DESCRIPTORS.map((d) => [d.kind, d]));

/** The descriptor of a kind. */
export const descriptorOf = (kind: ProcessKind): ProcessDescriptor<ProcessKind> => BY_KIND.get(kind)!;

/** The descriptor of a kind named by a string (a search attribute, a step's kind); undefined for an unknown one. */
export const findDescriptor = (kind: string): ProcessDescriptor<ProcessKind> | undefined => BY_KIND.get(kind);

/** The kind a workflow ID belongs to, from its prefix; undefined for IDs relayflow did not make. */
export function kindOfWorkflowId(workflowId: string): ProcessKind | undefined {
  const prefix = workflowId.split(':', 1)[0] ?? '';
  return BY_KIND.has(prefix) ? (prefix as ProcessKind) : undefined;
}

/** The family a kind of process belongs to. */
export const familyOf = (kind: ProcessKind): FamilyName => descriptorOf(kind).family;

/** The workflow type that runs a kind of process. */
export const workflowTypeOf = (kind: ProcessKind): string => descriptorOf(kind).workflowType;

/** A collection of the API: where processes are started and read, and its OpenAPI tag. */
export interface Collection {
  /** Under /v1, e.g. `/v1/senders`; one process is read at `${path}/:processId`, acted on below it. */
  path: string;
  tag: string;
  kinds: readonly ProcessKind[];
  /** Where processes start and are listed by style (`/v1/senders/rcs`); without styles, at `path` itself. */
  styles?: readonly { segment: string; kind: ProcessKind }[];
  /** A GET at `path` lists every style (where there are styles). */
  listsAll?: boolean;
}

/** The API's collections, from the kinds' own: kinds sharing a path share the collection. */
export const COLLECTIONS: readonly Collection[] = (() => {
  const byPath = new Map<string, Collection & { kinds: ProcessKind[]; styles?: { segment: string; kind: ProcessKind }[] }>();
  for (const d of DESCRIPTORS) {
    const c = d.collection;
    if (!c) continue;
    const into = byPath.get(c.path) ?? byPath.set(c.path, { path: c.path, tag: c.tag, kinds: [] }).get(c.path)!;
    into.kinds.push(d.kind);
    if (c.styles) into.styles = [...(into.styles ?? []), ...c.styles.map((segment) => ({ segment, kind: d.kind }))];
    if (c.listsAll) into.listsAll = true;
  }
  return [...byPath.values()];
})();

/** The platform areas (common/config.ts PLATFORM_AREAS, the sandbox's areas) a family's processes talk to. */
type PlatformAreaName = 'subprojects' | 'verification' | 'provisioning' | 'senderid' | 'conversation' | 'mms' | 'voice';

/** What a family holds besides its kinds. */
export interface FamilyFacts {
  areas: readonly PlatformAreaName[];
  /** Signals its helper workflows take (not a kind's: the resource inbox's). */
  signals?: readonly string[];
}

export interface Family extends FamilyFacts {
  name: FamilyName;
  kinds: readonly ProcessDescriptor<ProcessKind>[];
  collections: readonly Collection[];
}

const FACTS: Readonly<Record<FamilyName, FamilyFacts>> = {
  subprojects: subprojectsFamily,
  verification: verificationFamily,
  provisioning: provisioningFamily,
  senderid: senderidFamily,
  campaigns: campaignsFamily,
  voice: voiceFamily,
  onboarding: onboardingFamily,
};

export const FAMILY_NAMES = Object.keys(FACTS) as FamilyName[];

/** Each family with its kinds and collections, derived from the descriptors. */
export const FAMILIES: Readonly<Record<FamilyName, Family>> = Object.fromEntries(
  FAMILY_NAMES.map((name): [FamilyName, Family] => {
    const kinds = DESCRIPTORS.filter((d) => d.family === name);
    const collections = COLLECTIONS.filter((c) => c.kinds.some((k) => familyOf(k) === name));
    return [name, { name, ...FACTS[name], kinds, collections }];
  }),
) as Record<FamilyName, Family>;
