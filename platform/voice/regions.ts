// The regional calling addresses. A conference lives in one region, so every callout and operation of it must use
// that region's address (the spec's "regional scope"). The platform's hosts are `calling-<region>.api.sinch.com`;
// any other base (the sandbox, a proxy) serves a region under `<base>/<region>`. docs/voice-wire.md "Addresses".
import type { VoiceRegion } from '../../common/wire/voice.js';

const PLATFORM_GLOBAL = /^(https?:\/\/)calling(\.api\.sinch\.com)\/*$/;

/** The calling address of `region`, given the configured global one (PLATFORM_VOICE_URL). */
export function regionalVoiceUrl(voiceUrl: string, region: VoiceRegion): string {
  const base = voiceUrl.replace(/\/+$/, '');
  if (region === 'global') return base;
  const m = PLATFORM_GLOBAL.exec(base);
  return m ? `${m[1]}calling-${region}${m[2]}` : `${base}/${region}`;
}
