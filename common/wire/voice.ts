// Wire shapes, once, so client and sandbox cannot drift: the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records (which
// extend these), so it stays an independent check. Here: voice (area A), docs/voice-wire.md; SVAML in ./voice-svaml.ts.
/** The calling addresses: `global`, and the regions a conference or call can live in (docs/voice-wire.md "Addresses"). */
export const VOICE_REGIONS = ['global', 'euc1', 'use1', 'sae1', 'apse1', 'apse2'] as const;
export type VoiceRegion = (typeof VOICE_REGIONS)[number];

export type VoiceDomain = 'pstn' | 'mxp';
export interface VoiceDestination {
  type: 'number' | 'username';
  /** E.164 with + for `number`. */
  endpoint: string;
}

interface CalloutCommon {
  cli?: string;
  destination: VoiceDestination;
  domain?: VoiceDomain;
  /** Free text echoed in every callback of the call (relayflow puts its process reference here). */
  custom?: string;
  /** `[0-9#w]*`, played when the callee answers. */
  dtmf?: string;
  enableAce?: boolean;
  enableDice?: boolean;
  enablePie?: boolean;
  /** Answering machine detection: the ACE then carries `amd {status, reason, duration}`. */
  amd?: { enabled: boolean };
}

interface TtsCallout extends CalloutCommon {
  locale?: string;
  text?: string;
  prompts?: string;
}

interface ConferenceCallout extends CalloutCommon {
  conferenceId: string;
  maxDuration?: number;
  locale?: string;
  greeting?: string;
  mohClass?: string;
}

interface CustomCallout extends Omit<CalloutCommon, 'enableAce' | 'enableDice' | 'enablePie' | 'domain'> {
  maxDuration?: number;
  /** A callback URL or inline SVAML (a JSON string) per event. */
  ice?: string;
  ace?: string;
  pie?: string;
}

export type CalloutRequest =
  | { method: 'ttsCallout'; ttsCallout: TtsCallout }
  | { method: 'conferenceCallout'; conferenceCallout: ConferenceCallout }
  | { method: 'customCallout'; customCallout: CustomCallout };

export type CallStatus = 'ONGOING' | 'FINAL';
export type CallResult = 'N/A' | 'ANSWERED' | 'BUSY' | 'NOANSWER' | 'FAILED';

export interface CallInfo {
  callId: string;
  from?: string;
  to?: string;
  domain?: string;
  status?: CallStatus;
  result?: CallResult;
  reason?: string;
  duration?: number;
  custom?: string;
}

export interface ConferenceParticipant {
  id: string;
  cli?: string;
  duration?: number;
  muted?: boolean;
  onhold?: boolean;
}

export const PARTICIPANT_COMMANDS = ['mute', 'unmute', 'onhold', 'resume'] as const;
export type ParticipantCommand = (typeof PARTICIPANT_COMMANDS)[number];
export type CallLeg = 'caller' | 'callee' | 'both';

export type VoiceNumberCapability = 'voice' | 'sms';

export interface VoiceNumber {
  number: string;
  capability: VoiceNumberCapability;
  applicationKey?: string;
}

export interface CallbackUrls {
  primary: string;
  fallback?: string;
}
