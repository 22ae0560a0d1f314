// An incoming call, answered by the caller's voice rules: listed and read with every process.
import type { VoiceIncomingState } from '../contract.js';
import { defineKind, everyState } from '../../descriptor.js';

export const voiceIncoming = defineKind<VoiceIncomingState>()({
  kind: 'voice-incoming',
  family: 'voice',
  workflowType: 'voiceIncomingCall',
  versioning: 'pinned',
  /** Keyed by the platform's call ID. */
  id: (callId: string) => `voice-incoming:${callId}`,
  states: {
    all: everyState<VoiceIncomingState>()(['RINGING', 'CONNECTED', 'ENDED']),
    initial: 'RINGING',
    final: ['ENDED'],
    succeeded: [],
    failed: [],
    waiting: [],
  },
  signals: ['voiceCallEnded', 'voiceEvents', 'voiceFallback'],
  updates: ['voiceCallback'],
});
