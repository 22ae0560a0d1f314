// Every process family in one place. A family's name is the one spelling every layer uses for it: the
// folder under contracts/ (file), workflows/, activities/, api/routes/, docs/processes/ and test/<layer>/.
// Kinds (workflow ID prefixes) and workflow types are persisted in running processes' IDs and histories,
// so they keep the names they were born with; this is the one place that pairs them with their family.
import { REGISTRATION_STATES } from '../common/wire/senderid.js';
import type { CampaignState } from './campaigns.js';
import type { ProcessKind } from './ids.js';
import type { OnboardingState } from './onboarding.js';
import type { BundleProcessState } from './provisioning.js';
import type { SenderIdProcessState } from './senderid-registration.js';
import type { SubprojectState } from './subprojects.js';
import type { SdkVerificationState } from './sdk-verification.js';
import type { VerificationProcessState } from './verification.js';
import type { VoiceCalloutState, VoiceIncomingState } from './voice.js';

export const FAMILY_NAMES = ['subprojects', 'verification', 'provisioning', 'senderid', 'campaigns', 'voice', 'onboarding'] as const;
export type FamilyName = (typeof FAMILY_NAMES)[number];

/** The platform areas (common/config.ts PLATFORM_AREAS, the sandbox's areas) a family's processes talk to. */
type PlatformAreaName = 'subprojects' | 'verification' | 'provisioning' | 'senderid' | 'conversation' | 'mms' | 'voice';

interface KindEntry {
  kind: ProcessKind;
  /** The workflow function the worker registers (workflows/index.ts) and the API starts by name. */
  workflowType: string;
  /** The states its ProcessStatus moves through; undefined where they are the platform's own, passed through. */
  states?: readonly string[];
}

/** A collection of the API: where a family's processes are started and read, and its OpenAPI tag. */
export interface Collection {
  /** Under /v1, e.g. `/v1/senders`; one process is read at `${path}/:processId`, acted on below it. */
  path: string;
  tag: string;
  kinds: readonly ProcessKind[];
  /**
   * Where processes start and are listed by style (`/v1/senders/rcs`): each style's path segment and the kind it
   * starts. Without styles they start (POST) and are listed (GET) at `path` itself.
   */
  styles?: readonly { segment: string; kind: ProcessKind }[];
  /** A GET at `path` lists every style (where there are styles). */
  listsAll?: boolean;
}

export interface Family {
  name: FamilyName;
  kinds: readonly KindEntry[];
  collections: readonly Collection[];
  /** The contract files (under contracts/) the API, the workflows and the activities share. */
  contracts: readonly string[];
  areas: readonly PlatformAreaName[];
  /** Signal and update names a process of the family accepts (persisted in histories). */
  signals: readonly string[];
  updates: readonly string[];
}

/** Compile-time check that a state list names every state of its type, and nothing else. */
const states =
  <S extends string>() =>
  <const L extends readonly S[]>(list: L & ([S] extends [L[number]] ? unknown : never)): readonly S[] =>
    list;

const TEMPLATE_KINDS = ['chata-template', 'chatb-template'] as const;
const SENDER_KINDS = ['rcs-sender', 'chata-sender', 'chatb-sender'] as const;
const CAMPAIGN_KINDS = ['conversation-campaign', 'mms-campaign'] as const;
/** Styles named by their kind's first word: `/v1/senders/rcs` starts an `rcs-sender`. */
const styledByPrefix = (kinds: readonly ProcessKind[]) => kinds.map((kind) => ({ segment: kind.split('-')[0]!, kind }));
const PROVISIONING_UPDATES = ['resubmit', 'relaunch', 'stop'];
const PROVISIONING_SIGNALS = ['provisioningEvent', 'attach', 'resubmitRequested', 'relaunchRequested'];

export const FAMILIES: Readonly<Record<FamilyName, Family>> = {
  subprojects: {
    name: 'subprojects',
    kinds: [
      {
        kind: 'subproject',
        workflowType: 'subprojectProvisioning',
        states: states<SubprojectState>()(['CREATING', 'WAITING_UNTIL_USABLE', 'READY', 'FAILED']),
      },
    ],
    collections: [{ path: '/v1/subprojects', tag: 'subprojects', kinds: ['subproject'] }],
    contracts: ['subprojects.ts'],
    areas: ['subprojects'],
    signals: [],
    updates: [],
  },
  verification: {
    name: 'verification',
    kinds: [
      {
        kind: 'verification',
        workflowType: 'verification',
        states: states<VerificationProcessState>()(['STARTING', 'PENDING', 'SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR', 'CANCELLED', 'ABANDONED']),
      },
      // Adopted from the platform's callbacks (an SDK's verification): listed and read with every process, no collection.
      {
        kind: 'sdk-verification',
        workflowType: 'sdkVerification',
        states: states<SdkVerificationState>()(['PENDING', 'SUCCESSFUL', 'FAIL', 'DENIED', 'ABORTED', 'ERROR', 'UNKNOWN']),
      },
    ],
    collections: [{ path: '/v1/verifications', tag: 'verifications', kinds: ['verification'] }],
    contracts: ['verification.ts', 'sdk-verification.ts'],
    areas: ['verification'],
    // sdkVerificationEvent: an adopted SDK verification's callbacks (workflows/verification/sdk-verification.ts).
    signals: ['platformEvent', 'sdkVerificationEvent'],
    updates: ['verificationStarted', 'reportCode', 'resend', 'cancel'],
  },
  provisioning: {
    name: 'provisioning',
    kinds: [
      ...TEMPLATE_KINDS.map((kind) => ({ kind, workflowType: 'templateApproval' })),
      { kind: 'rcs-sender', workflowType: 'rcsSenderLaunch' },
      { kind: 'chata-sender', workflowType: 'chataSenderOnboarding' },
      { kind: 'chatb-sender', workflowType: 'chatbSenderOnboarding' },
      {
        kind: 'bundle-provisioning',
        workflowType: 'bundleProvisioning',
        states: states<BundleProcessState>()(['CREATING', 'IN_PROGRESS', 'ACTIVE', 'FAILED', 'DELETING', 'DELETED', 'STOPPED']),
      },
    ],
    collections: [
      { path: '/v1/templates', tag: 'templates', kinds: TEMPLATE_KINDS, styles: styledByPrefix(TEMPLATE_KINDS) },
      { path: '/v1/senders', tag: 'senders', kinds: SENDER_KINDS, styles: styledByPrefix(SENDER_KINDS) },
      { path: '/v1/bundles', tag: 'bundles', kinds: ['bundle-provisioning'] },
    ],
    contracts: ['provisioning.ts'],
    areas: ['provisioning'],
    signals: PROVISIONING_SIGNALS,
    updates: [...PROVISIONING_UPDATES, 'delete', 'verifyPhone', 'updateSender', 'deleteTemplateChange'],
  },
  senderid: {
    name: 'senderid',
    kinds: [
      {
        kind: 'senderid-registration',
        workflowType: 'senderIdRegistration',
        states: states<SenderIdProcessState>()(['VALIDATING', 'CREATING', ...REGISTRATION_STATES, 'DELETED', 'STOPPED', 'FAILED']),
      },
    ],
    collections: [{ path: '/v1/senderid/registrations', tag: 'senderid', kinds: ['senderid-registration'] }],
    contracts: ['senderid.ts', 'senderid-registration.ts'],
    areas: ['senderid'],
    signals: ['senderIdCallback'],
    updates: ['updateRegistration', 'attachmentUploaded', 'stopRegistration'],
  },
  campaigns: {
    name: 'campaigns',
    kinds: CAMPAIGN_KINDS.map((kind) => ({
      kind,
      workflowType: 'campaign',
      states: states<CampaignState>()(['PREPARING', 'SENDING', 'PAUSED', 'SETTLING', 'COMPLETED', 'CANCELLED', 'FAILED']),
    })),
    collections: [
      {
        path: '/v1/campaigns',
        tag: 'campaigns',
        kinds: CAMPAIGN_KINDS,
        styles: styledByPrefix(CAMPAIGN_KINDS),
        listsAll: true,
      },
    ],
    contracts: ['campaigns.ts'],
    areas: ['conversation', 'mms'],
    signals: [],
    updates: ['pauseCampaign', 'resumeCampaign', 'cancelCampaign', 'setCampaignRate'],
  },
  voice: {
    name: 'voice',
    kinds: [
      {
        kind: 'voice-callout',
        workflowType: 'voiceCallout',
        states: states<VoiceCalloutState>()(['CALLING', 'WAITING_RETRY', 'COMPLETED', 'FAILED', 'STOPPED']),
      },
      { kind: 'voice-incoming', workflowType: 'voiceIncomingCall', states: states<VoiceIncomingState>()(['RINGING', 'CONNECTED', 'ENDED']) },
    ],
    collections: [
      {
        path: '/v1/voice/callouts',
        tag: 'voice',
        kinds: ['voice-callout'],
        styles: (['tts', 'conference', 'custom'] as const).map((segment) => ({ segment, kind: 'voice-callout' as const })),
        listsAll: true,
      },
    ],
    contracts: ['voice.ts', 'voice-call-driver.ts', 'voice-script.ts'],
    areas: ['voice'],
    signals: ['voiceCallEnded', 'voiceEvents', 'voiceFallback', 'voiceRecording'],
    updates: ['voiceCallback', 'stopCallout'],
  },
  onboarding: {
    name: 'onboarding',
    kinds: [
      {
        kind: 'onboarding',
        workflowType: 'onboarding',
        states: states<OnboardingState>()(['RUNNING', 'WAITING_FOR_CALLER', 'COMPLETED', 'CANCELLING', 'CANCELLED']),
      },
    ],
    collections: [{ path: '/v1/onboardings', tag: 'onboardings', kinds: ['onboarding'] }],
    contracts: ['onboarding.ts'],
    areas: [],
    signals: ['childState'],
    updates: ['retryStep', 'skipStep', 'cancelOnboarding', 'addSteps'],
  },
};

const KIND_ENTRIES = new Map(FAMILY_NAMES.flatMap((f) => FAMILIES[f].kinds.map((k) => [k.kind, { family: f, entry: k }] as const)));

/** The family a kind of process belongs to. */
export const familyOf = (kind: ProcessKind): FamilyName => KIND_ENTRIES.get(kind)!.family;

/** The workflow type that runs a kind of process. */
export const workflowTypeOf = (kind: ProcessKind): string => KIND_ENTRIES.get(kind)!.entry.workflowType;
