// A callout: relayflow calls a number and plays a script, retrying as the caller asked.
import type { VoiceCalloutState } from '../contract.js';
import { everyState } from '../../descriptor.js';
import { callKind } from '../call-kind.js';

export const voiceCallout = callKind<VoiceCalloutState>()('voice-callout', {
  workflowType: 'voiceCallout',
  states: {
    all: everyState<VoiceCalloutState>()(['CALLING', 'WAITING_RETRY', 'COMPLETED', 'FAILED', 'STOPPED']),
    initial: 'CALLING',
    final: ['COMPLETED', 'FAILED', 'STOPPED'],
    succeeded: ['COMPLETED'],
    failed: ['FAILED'],
  },
  signals: ['voiceRecording'],
  updates: ['stopCallout'],
  collection: { path: '/v1/voice/callouts', tag: 'voice', styles: ['tts', 'conference', 'custom'], listsAll: true },
});
