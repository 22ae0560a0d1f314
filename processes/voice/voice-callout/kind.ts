// A callout: relayflow calls a number and plays a script, retrying as the caller asked.
import type { VoiceCalloutState } from '../contract.js';
import { defineKind, everyState } from '../../descriptor.js';

export const voiceCallout = defineKind<VoiceCalloutState>()({
  kind: 'voice-callout',
  family: 'voice',
  workflowType: 'voiceCallout',
  versioning: 'pinned',
  /** Keyed by the caller's key (CAMPAIGN_KEY_PATTERN) or a ULID. */
  id: (key: string) => `voice-callout:${key}`,
  states: {
    all: everyState<VoiceCalloutState>()(['CALLING', 'WAITING_RETRY', 'COMPLETED', 'FAILED', 'STOPPED']),
    initial: 'CALLING',
    final: ['COMPLETED', 'FAILED', 'STOPPED'],
    succeeded: ['COMPLETED'],
    failed: ['FAILED'],
    waiting: [],
  },
  signals: ['voiceCallEnded', 'voiceEvents', 'voiceFallback', 'voiceRecording'],
  updates: ['voiceCallback', 'stopCallout'],
  collection: { path: '/v1/voice/callouts', tag: 'voice', styles: ['tts', 'conference', 'custom'], listsAll: true },
});
