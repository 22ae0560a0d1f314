// Wire shapes, once (issue 22): the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records (which
// extend these), so it stays an independent check. Here: voice (area A), docs/voice-wire.md; SVAML in ./voice-svaml.ts.
type VoiceDomain = 'pstn' | 'mxp';
interface VoiceDestination {
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

export interface CallInfo {
  callId: string;
  from?: string;
  to?: string;
  domain?: string;
  status?: 'ONGOING' | 'FINAL';
  result?: 'N/A' | 'ANSWERED' | 'BUSY' | 'NOANSWER' | 'FAILED';
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

export type ParticipantCommand = 'mute' | 'unmute' | 'onhold' | 'resume';
export type CallLeg = 'caller' | 'callee' | 'both';

export interface VoiceNumber {
  number: string;
  capability: 'voice' | 'sms';
  applicationKey?: string;
}

export interface CallbackUrls {
  primary: string;
  fallback?: string;
}
