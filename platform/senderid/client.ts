// Sender ID registrations (area F, v1): one client per project, authenticated with the project's key
// (OAuth 2.0 bearer from the shared token source). Markets, policy requirements, template download,
// registrations (create, read, list following nextPageToken, update, delete), attachment upload and the
// callback configuration. Contract: docs/senderid-wire.md. Errors are the typed PlatformErrors of
// ../errors.ts (area 'senderid'); a validation 400 carries its violations (senderIdViolations()).
import { OAuthBearerAuth, type OAuthTokenSource } from '../auth/oauth.js';
import type { AuthRequest, AuthStrategy } from '../auth/strategy.js';
import { PlatformNotFoundError, platformErrorFromResponse, platformErrorFromTransport } from '../errors.js';
import type { HttpMethod, PlatformHttp, QueryValue } from '../http.js';
import type {
  Attachment,
  CallbackConfiguration,
  CreateRegistrationRequest,
  Market,
  MarketDetails,
  MarketQuery,
  Policy,
  Registration,
  RegistrationListQuery,
  RegistrationPage,
  UpdateRegistrationRequest,
} from '../../common/wire/senderid.js';
import type { AttachmentUpload, TemplateFile } from './types.js';

export interface SenderIdClientOptions {
  http: PlatformHttp;
  /** urls.senderid */
  baseUrl: string;
  /** The project every path is scoped to (credentials.projectId); the key must own it (403 otherwise). */
  projectId: string;
  tokens: OAuthTokenSource;
}

/** Encodes one path segment (IDs are opaque). */
const seg = (value: string): string => encodeURIComponent(value);

/** The largest page the platform gives (1..100). */
const SENDER_ID_MAX_PAGE_SIZE = 100;

export class SenderIdClient {
  readonly projectId: string;
  readonly #http: PlatformHttp;
  readonly #auth: AuthStrategy;
  /** `{base}/v1/projects/{projectId}` */
  readonly #projectBase: string;

  constructor(opts: SenderIdClientOptions) {
    this.#http = opts.http;
    this.#auth = new OAuthBearerAuth(opts.tokens);
    this.projectId = opts.projectId;
    this.#projectBase = `${opts.baseUrl.replace(/\/+$/, '')}/v1/projects/${seg(opts.projectId)}`;
  }

  // --- markets and policies --------------------------------------------------------------------

  /** Markets open for a registration type: `GET markets/availability`. */
  async marketAvailability(q: MarketQuery = {}): Promise<Market[]> {
    const body = await this.#call<{ markets?: Market[] } | undefined>('GET', 'markets/availability', { query: { ...q } });
    return Array.isArray(body?.markets) ? body.markets : [];
  }

  /** A market's requirements (its versions, with the questions that lead to a policy): `GET markets/details`. */
  async marketRequirements(q: MarketQuery & { marketCode: string }): Promise<MarketDetails> {
    const body = await this.#call<Partial<MarketDetails> | undefined>('GET', 'markets/details', { query: { ...q } });
    const marketVersions = Array.isArray(body?.marketVersions) ? body.marketVersions : [];
    return {
      marketVersions,
      totalSize: typeof body?.totalSize === 'number' ? body.totalSize : marketVersions.length,
      nextPageToken: body?.nextPageToken ?? '',
    };
  }

  /** A policy's requirements (fields with validations, attachment definitions): `GET policies/{id}`. */
  async policyRequirements(policyId: string): Promise<Policy> {
    return this.#call<Policy>('GET', `policies/${seg(policyId)}`);
  }

  /** The template to fill in for an attachment definition, as bytes (404 when it has none). */
  async downloadTemplate(policyId: string, attachmentDefinitionId: string, opts: { signal?: AbortSignal } = {}): Promise<TemplateFile> {
    const url = new URL(`${this.#projectBase}/policies/${seg(policyId)}/attachments/${seg(attachmentDefinitionId)}/template`);
    // PlatformHttp reads answers as text; a template is a binary file, so it is read here as bytes,
    // with the same auth, one re-authentication after a 401, the same typed errors, and counted the same.
    const res = await this.#http.observed(
      'senderid',
      async () => {
        let r = await this.#getBytes(url, opts.signal);
        if (r.status === 401 && this.#auth.onUnauthorized && (await this.#auth.onUnauthorized(r.sent))) r = await this.#getBytes(url, opts.signal);
        if (r.status < 200 || r.status > 299) {
          throw platformErrorFromResponse({ area: 'senderid', status: r.status, headers: r.headers, body: parseMaybeJson(r.content) });
        }
        return r;
      },
      { signal: opts.signal, method: 'GET', url },
    );
    const disposition = res.headers['content-disposition'] ?? '';
    const fileName = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1] ?? `${attachmentDefinitionId}-template`;
    return { fileName: decodeURIComponentSafe(fileName), contentType: res.headers['content-type'] ?? 'application/octet-stream', content: res.content };
  }

  // --- registrations ---------------------------------------------------------------------------

  /** Creates a registration (state IN_QUEUE). Not idempotent on the platform: see processes/senderid/senderid-registration/activities for the look-up first. */
  async createRegistration(req: CreateRegistrationRequest): Promise<Registration> {
    return this.#call<Registration>('POST', 'registrations', { json: req });
  }

  async getRegistration(registrationId: string): Promise<Registration> {
    return this.#call<Registration>('GET', `registrations/${seg(registrationId)}`);
  }

  /** One page; `nextPageToken` is '' on the last one. */
  async listRegistrations(q: RegistrationListQuery = {}): Promise<RegistrationPage> {
    const body = await this.#call<Partial<RegistrationPage> | undefined>('GET', 'registrations', {
      query: {
        registrationState: q.registrationState,
        marketCode: q.marketCode,
        senderId: q.senderId,
        registrationType: q.registrationType,
        pageSize: q.pageSize,
        pageToken: q.pageToken || undefined,
      },
    });
    const page: RegistrationPage = {
      registrations: Array.isArray(body?.registrations) ? body.registrations : [],
      nextPageToken: typeof body?.nextPageToken === 'string' ? body.nextPageToken : '',
    };
    if (typeof body?.totalSize === 'number') page.totalSize = body.totalSize;
    return page;
  }

  /** Every registration matching the query, following nextPageToken to the last page. */
  async *listAllRegistrations(q: Omit<RegistrationListQuery, 'pageToken'> = {}): AsyncGenerator<Registration> {
    const seen = new Set<string>();
    let pageToken = '';
    do {
      const page = await this.listRegistrations({ pageSize: SENDER_ID_MAX_PAGE_SIZE, ...q, pageToken });
      yield* page.registrations;
      pageToken = page.nextPageToken;
      // A token handed out twice would loop forever.
      if (seen.has(pageToken)) throw new Error('senderId: page token repeated while listing registrations');
      seen.add(pageToken);
    } while (pageToken !== '');
  }

  /** 409 (PlatformConflictError) in a state that forbids updates. */
  async updateRegistration(registrationId: string, changes: UpdateRegistrationRequest): Promise<Registration> {
    return this.#call<Registration>('PUT', `registrations/${seg(registrationId)}`, { json: changes });
  }

  /** 404 when unknown or already deleted; 409 once APPROVED. */
  async deleteRegistration(registrationId: string): Promise<void> {
    await this.#call<unknown>('DELETE', `registrations/${seg(registrationId)}`);
  }

  /** Uploads (or replaces) the file of one attachment definition; it starts WAITING. */
  async uploadAttachment(registrationId: string, attachmentDefinitionId: string, file: AttachmentUpload): Promise<Attachment> {
    return this.#call<Attachment>('POST', `registrations/${seg(registrationId)}/attachments/${seg(attachmentDefinitionId)}`, {
      json: {
        fileName: file.fileName,
        mimeType: file.mimeType,
        content: file.content.toString('base64'),
        ...(file.documentType === undefined ? {} : { documentType: file.documentType }),
      },
    });
  }

  // --- callback configuration ------------------------------------------------------------------

  /** The project's callback configuration; undefined when none was ever set (the platform answers 404). */
  async getCallbackConfiguration(): Promise<CallbackConfiguration | undefined> {
    try {
      return await this.#call<CallbackConfiguration>('GET', 'callback-configuration');
    } catch (err) {
      if (err instanceof PlatformNotFoundError) return undefined;
      throw err;
    }
  }

  /** Sets the secret that signs every callback sent after this answers. Idempotent. */
  async setCallbackConfiguration(hmacSecret: string): Promise<CallbackConfiguration> {
    return this.#call<CallbackConfiguration>('PUT', 'callback-configuration', { json: { hmacSecret } });
  }

  // --- plumbing --------------------------------------------------------------------------------

  async #call<T>(method: HttpMethod, path: string, opts: { json?: unknown; query?: Record<string, QueryValue> } = {}): Promise<T> {
    const res = await this.#http.request<T>({
      area: 'senderid',
      method,
      url: `${this.#projectBase}/${path}`,
      json: opts.json,
      query: opts.query,
      auth: this.#auth,
    });
    return res.body;
  }

  async #getBytes(url: URL, signal: AbortSignal | undefined) {
    const sent: AuthRequest = { method: 'GET', url, headers: { accept: '*/*' } };
    await this.#auth.apply(sent);
    const timeout = AbortSignal.timeout(this.#http.timeoutMs);
    try {
      const res = await fetch(url, { method: 'GET', headers: sent.headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
      return { status: res.status, headers, content: Buffer.from(await res.arrayBuffer()), sent };
    } catch (err) {
      if (signal?.aborted) throw err;
      throw platformErrorFromTransport('senderid', err, this.#http.timeoutMs);
    }
  }
}

function parseMaybeJson(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function decodeURIComponentSafe(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

export * from './types.js';
export * from './errors.js';
export * from './validate.js';
