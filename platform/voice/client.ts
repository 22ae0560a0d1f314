// Voice (area A): callouts, call and conference management on the calling address (or the address an ICE gave
// for its call), and number and callback configuration on the configuration address. Application signed
// requests. docs/voice-wire.md.
import type { AuthStrategy } from '../auth/strategy.js';
import type { HttpMethod, PlatformHttp } from '../http.js';
import type { CallbackUrls, CallInfo, CallLeg, CalloutRequest, ConferenceParticipant, ParticipantCommand, VoiceNumber } from '../../common/wire/voice.js';
import type { Svaml } from '../../common/wire/voice-svaml.js';

export interface VoiceClientOptions {
  http: PlatformHttp;
  /** {voice_url}: the global or a regional calling address (paths under /calling/v1). */
  baseUrl: string;
  /** {voice_config_url}: numbers and callbacks (paths under /v1/configuration). */
  configUrl: string;
  auth: AuthStrategy;
  /** The application's key: the configuration paths name it. */
  applicationKey: () => string;
}

const seg = encodeURIComponent;
const trim = (u: string) => u.replace(/\/+$/, '');

export class VoiceClient {
  readonly #o: VoiceClientOptions;

  constructor(opts: VoiceClientOptions) {
    this.#o = opts;
  }

  /** Places a callout; the platform's call ID. `baseUrl` overrides the calling address (a conference's region). */
  async callout(req: CalloutRequest, opts: { baseUrl?: string } = {}): Promise<{ callId: string }> {
    const body = await this.#calling<{ callId?: string }>('POST', 'callouts', opts.baseUrl, req);
    if (!body?.callId) throw new Error('callout answered without a callId');
    return { callId: body.callId };
  }

  /** `baseUrl`: where the call is managed (an incoming call's callResourceUrl base, a callout's region). */
  getCall(callId: string, opts: { baseUrl?: string } = {}): Promise<CallInfo> {
    return this.#calling<CallInfo>('GET', `calls/id/${seg(callId)}`, opts.baseUrl);
  }

  async updateCall(callId: string, svaml: Svaml, opts: { baseUrl?: string } = {}): Promise<void> {
    await this.#calling('PATCH', `calls/id/${seg(callId)}`, opts.baseUrl, svaml);
  }

  /** Only playFiles and say (common/wire/voice-svaml.ts legInstructionViolations). */
  async updateCallLeg(callId: string, leg: CallLeg, instructions: Svaml['instructions'], opts: { baseUrl?: string } = {}): Promise<void> {
    await this.#calling('PATCH', `calls/id/${seg(callId)}/leg/${seg(leg)}`, opts.baseUrl, { instructions });
  }

  async conference(conferenceId: string, opts: { baseUrl?: string } = {}): Promise<{ participants: ConferenceParticipant[] }> {
    const body = await this.#calling<{ participants?: ConferenceParticipant[] }>('GET', `conferences/id/${seg(conferenceId)}`, opts.baseUrl);
    return { participants: body?.participants ?? [] };
  }

  async manageParticipant(conferenceId: string, callId: string, command: ParticipantCommand, opts: { baseUrl?: string; moh?: string } = {}): Promise<void> {
    await this.#calling('PATCH', `conferences/id/${seg(conferenceId)}/${seg(callId)}`, opts.baseUrl, { command, ...(opts.moh ? { moh: opts.moh } : {}) });
  }

  async removeParticipant(conferenceId: string, callId: string, opts: { baseUrl?: string } = {}): Promise<void> {
    await this.#calling('DELETE', `conferences/id/${seg(conferenceId)}/${seg(callId)}`, opts.baseUrl);
  }

  async removeAllParticipants(conferenceId: string, opts: { baseUrl?: string } = {}): Promise<void> {
    await this.#calling('DELETE', `conferences/id/${seg(conferenceId)}`, opts.baseUrl);
  }

  async numbers(): Promise<VoiceNumber[]> {
    const body = await this.#config<{ numbers?: Array<{ number: string; capability: 'voice' | 'sms'; applicationkey?: string }> }>('GET', 'numbers');
    return (body?.numbers ?? []).map((n) => ({
      number: n.number,
      capability: n.capability,
      ...(n.applicationkey ? { applicationKey: n.applicationkey } : {}),
    }));
  }

  async assignNumbers(numbers: string[], capability: 'voice' | 'sms' = 'voice'): Promise<void> {
    await this.#config('POST', 'numbers', { numbers, applicationkey: this.#o.applicationKey(), capability });
  }

  async unassignNumber(number: string, capability: 'voice' | 'sms' = 'voice'): Promise<void> {
    await this.#config('DELETE', 'numbers', { number, applicationkey: this.#o.applicationKey(), capability });
  }

  async callbackUrls(): Promise<CallbackUrls | undefined> {
    const body = await this.#config<{ url?: { primary?: string; fallback?: string } }>('GET', `callbacks/applications/${seg(this.#o.applicationKey())}`);
    return body?.url?.primary ? { primary: body.url.primary, ...(body.url.fallback ? { fallback: body.url.fallback } : {}) } : undefined;
  }

  async setCallbackUrls(urls: CallbackUrls): Promise<void> {
    await this.#config('POST', `callbacks/applications/${seg(this.#o.applicationKey())}`, { url: urls });
  }

  async #calling<T>(method: HttpMethod, path: string, baseUrl: string | undefined, json?: unknown): Promise<T> {
    return this.#send<T>(method, `${trim(baseUrl ?? this.#o.baseUrl)}/calling/v1/${path}`, json);
  }

  async #config<T>(method: HttpMethod, path: string, json?: unknown): Promise<T> {
    return this.#send<T>(method, `${trim(this.#o.configUrl)}/v1/configuration/${path}`, json);
  }

  async #send<T>(method: HttpMethod, url: string, json?: unknown): Promise<T> {
    const res = await this.#o.http.request<T>({ area: 'voice', method, url, auth: this.#o.auth, ...(json !== undefined ? { json } : {}) });
    return res.body;
  }
}

/** The calling address of a call from its ICE's callResourceUrl (`https://host/calling/v1/calls/id/...`). */
export function callingBaseOf(callResourceUrl: string): string | undefined {
  const m = /^(https?:\/\/[^/]+(?:\/[^/]+)*?)\/calling\/v1\//.exec(callResourceUrl);
  return m?.[1];
}
