// What a process that follows calls says of itself (call-driver.ts): it stays on the worker version that started
// it (a call lasts minutes), is keyed by one ID, and takes each call's callbacks (an update the intake waits on),
// its end, the events the intake answered from the call's plan, and the intake's fallbacks.
import { defineKind, type KindSpec } from '../descriptor.js';

type CallKindSpec<S extends string> = Pick<KindSpec<S>, 'workflowType' | 'states' | 'signals' | 'updates' | 'collection'>;

export const callKind =
  <S extends string>() =>
  <K extends 'voice-callout' | 'voice-incoming', const D extends CallKindSpec<S>>(kind: K, { signals = [], updates = [], ...spec }: D) =>
    defineKind<S>()({
      kind,
      family: 'voice',
      versioning: 'pinned',
      ...spec,
      /** A callout by the caller's key (CAMPAIGN_KEY_PATTERN) or a ULID; an incoming call by the platform's call ID. */
      id: (key: string) => `${kind}:${key}`,
      signals: ['voiceCallEnded', 'voiceEvents', 'voiceFallback', ...signals],
      updates: ['voiceCallback', ...updates],
    });
