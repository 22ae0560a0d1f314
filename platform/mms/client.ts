// MMS JSON (area C): one POST per action with the account key in x-api-key. A 200 answer saying
// `status: Failure` is an error like any other (typed by its E-code: E113 is "slow down").
import { ApiKeyAuth } from '../auth/api-key.js';
import { platformErrorFromResponse } from '../errors.js';
import type { PlatformHttp } from '../http.js';
import type { MmsMessage, MmsSendRequest, MmsSendSavedRequest } from './types.js';

export interface MmsClientOptions {
  http: PlatformHttp;
  /** urls.mms, ending in /ep/v2 (sandbox: {sandbox}/mms) */
  baseUrl: string;
  apiKey: string;
}

interface MmsAnswer {
  status?: string;
  'tracking-id'?: string;
  'mms-id'?: string;
}

export class MmsClient {
  readonly #http: PlatformHttp;
  readonly #url: string;
  readonly #auth: ApiKeyAuth;

  constructor(opts: MmsClientOptions) {
    this.#http = opts.http;
    this.#url = `${opts.baseUrl.replace(/\/+$/, '')}/`;
    this.#auth = new ApiKeyAuth(opts.apiKey);
  }

  async send(r: MmsSendRequest): Promise<{ trackingId: string }> {
    const a = await this.post({ action: 'sendmms', to: r.to, ...displayOnly(r.toDisplayOnly), ...wireMessage(r.message), ...reference(r.clientReference) });
    return { trackingId: a['tracking-id'] ?? '' };
  }

  async save(m: MmsMessage): Promise<{ mmsId: string }> {
    const a = await this.post({ action: 'savemms', ...wireMessage(m) });
    return { mmsId: a['mms-id'] ?? '' };
  }

  async sendSaved(r: MmsSendSavedRequest): Promise<{ trackingId: string }> {
    const a = await this.post({
      action: 'sendsavedmms',
      'service-id': r.serviceId,
      'mms-id': r.mmsId,
      to: r.to,
      ...displayOnly(r.toDisplayOnly),
      ...reference(r.clientReference),
    });
    return { trackingId: a['tracking-id'] ?? '' };
  }

  private async post(json: Record<string, unknown>): Promise<MmsAnswer> {
    const res = await this.#http.request<MmsAnswer>({
      area: 'mms',
      method: 'POST',
      url: this.#url,
      json,
      auth: this.#auth,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      // MMS answers some failures (E113 throttling among them) with a 2xx and `status: Failure`.
      failureOf: (r) =>
        (r.body as MmsAnswer | undefined)?.status !== 'Success'
          ? platformErrorFromResponse({ area: 'mms', status: r.status, headers: r.headers, body: r.body })
          : undefined,
    });
    return res.body;
  }
}

const displayOnly = (v: string | undefined) => (v ? { 'to-displayonly': v } : {});
const reference = (v: string | undefined) => (v ? { 'client-reference': v } : {});

function wireMessage(m: MmsMessage): Record<string, unknown> {
  return {
    'service-id': m.serviceId,
    ...(m.from ? { from: m.from } : {}),
    'message-subject': m.subject,
    slide: m.slides.map((s) => {
      const { text, ...media } = s;
      return { ...(text !== undefined ? { 'message-text': text } : {}), ...Object.fromEntries(Object.entries(media).map(([k, url]) => [k, { url }])) };
    }),
    ...(m.fallbackSmsText !== undefined ? { 'fallback-sms-text': m.fallbackSmsText } : {}),
    ...(m.disableFallbackSms !== undefined ? { 'disable-fallback-sms': m.disableFallbackSms } : {}),
    ...(m.disableFallbackSmsLink !== undefined ? { 'disable-fallback-sms-link': m.disableFallbackSmsLink } : {}),
    ...(m.fallbackSmsLinkExpiration !== undefined ? { 'fallback-sms-link-expiration': m.fallbackSmsLinkExpiration } : {}),
  };
}
