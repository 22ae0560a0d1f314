// Subprojects interface (area E, v1alpha1): create, list (paged) and read subprojects of a parent project,
// authenticated with the parent project's key.
import type { PlatformHttp } from '../http.js';
import { BasicAuth } from '../auth/basic.js';
import { OAuthBearerAuth, type OAuthTokenSource } from '../auth/oauth.js';
import type { AuthStrategy } from '../auth/strategy.js';
import type { Subproject, SubprojectPage } from '../../common/wire/subprojects.js';

export type SubprojectsClientOptions = {
  http: PlatformHttp;
  /** urls.subprojects */
  baseUrl: string;
} & (
  | { basicAuth?: false; tokens: OAuthTokenSource }
  /** Prototyping only: the platform rate-limits Basic heavily. */
  | { basicAuth: true; credentials: { keyId: string; keySecret: string } }
);

export class SubprojectsClient {
  readonly #http: PlatformHttp;
  readonly #base: string;
  readonly #auth: AuthStrategy;

  constructor(opts: SubprojectsClientOptions) {
    this.#http = opts.http;
    this.#base = opts.baseUrl.replace(/\/+$/, '');
    this.#auth = opts.basicAuth ? new BasicAuth(opts.credentials.keyId, opts.credentials.keySecret) : new OAuthBearerAuth(opts.tokens);
  }

  #url(parentProjectId: string, subprojectId?: string): string {
    const collection = `${this.#base}/v1alpha1/projects/${encodeURIComponent(parentProjectId)}/subprojects`;
    return subprojectId === undefined ? collection : `${collection}/${encodeURIComponent(subprojectId)}`;
  }

  async create(parentProjectId: string, input: { displayName: string }): Promise<Subproject> {
    const res = await this.#http.request<Subproject>({
      area: 'subprojects',
      method: 'POST',
      url: this.#url(parentProjectId),
      json: { displayName: input.displayName },
      auth: this.#auth,
    });
    return res.body;
  }

  async listPage(parentProjectId: string, page: { pageSize?: number; pageToken?: string } = {}): Promise<SubprojectPage> {
    const res = await this.#http.request<Partial<SubprojectPage> | undefined>({
      area: 'subprojects',
      method: 'GET',
      url: this.#url(parentProjectId),
      query: { pageSize: page.pageSize, pageToken: page.pageToken || undefined },
      auth: this.#auth,
    });
    return { subprojects: res.body?.subprojects ?? [], nextPageToken: res.body?.nextPageToken ?? '' };
  }

  /** Every subproject of the parent, following nextPageToken to the last page. */
  async *listAll(parentProjectId: string, opts: { pageSize?: number } = {}): AsyncGenerator<Subproject> {
    const seen = new Set<string>();
    let pageToken = '';
    do {
      const page = await this.listPage(parentProjectId, { pageSize: opts.pageSize, pageToken });
      yield* page.subprojects;
      pageToken = page.nextPageToken;
      // A token handed out twice would loop forever.
      if (seen.has(pageToken)) throw new Error(`subprojects: page token repeated while listing ${parentProjectId}`);
      seen.add(pageToken);
    } while (pageToken !== '');
  }

  /** The subproject; 404 when unknown. A 403 is expected (not counted as an error): the polls of old processes wait through it. */
  async get(parentProjectId: string, subprojectId: string): Promise<Subproject> {
    const res = await this.#http.request<Subproject>({
      area: 'subprojects',
      method: 'GET',
      url: this.#url(parentProjectId, subprojectId),
      auth: this.#auth,
      expectedStatuses: [403],
    });
    return res.body;
  }
}
