// What every provisioning sub-client shares: the project-scoped base path, the auth strategy and
// paged lists that follow nextPageToken.
import type { HttpMethod, PlatformHttp, QueryValue } from '../http.js';
import type { AuthStrategy } from '../auth/strategy.js';
import type { ProvisioningPage } from '../../common/wire/provisioning.js';

export interface ProvisioningListQuery {
  pageSize?: number;
  pageToken?: string;
  filterStates?: readonly string[];
}

/** Encodes one path segment (IDs are opaque). */
export const seg = (value: string): string => encodeURIComponent(value);

export class ProvisioningTransport {
  readonly #http: PlatformHttp;
  readonly #auth: AuthStrategy;
  /** `{base}/v1/projects/{projectId}` */
  readonly #projectBase: string;
  readonly projectId: string;

  constructor(opts: { http: PlatformHttp; baseUrl: string; projectId: string; auth: AuthStrategy }) {
    this.#http = opts.http;
    this.#auth = opts.auth;
    this.projectId = opts.projectId;
    this.#projectBase = `${opts.baseUrl.replace(/\/+$/, '')}/v1/projects/${seg(opts.projectId)}`;
  }

  /** `path` is relative to the project and already encoded (build it with `seg`). */
  async call<T>(method: HttpMethod, path: string, opts: { json?: unknown; query?: Record<string, QueryValue> } = {}): Promise<T> {
    const res = await this.#http.request<T>({
      area: 'provisioning',
      method,
      url: `${this.#projectBase}/${path.replace(/^\/+/, '')}`,
      json: opts.json,
      query: opts.query,
      auth: this.#auth,
    });
    return res.body;
  }

  /** One page of a list answer `{<key>: [...], nextPageToken, totalSize}`, normalised ('' on the last page). */
  async page<K extends string, T>(path: string, key: K, q: ProvisioningListQuery = {}): Promise<ProvisioningPage<K, T>> {
    const body = await this.call<Record<string, unknown> | undefined>('GET', path, {
      query: {
        pageSize: q.pageSize,
        pageToken: q.pageToken || undefined,
        filterStates: q.filterStates?.length ? q.filterStates.join(',') : undefined,
      },
    });
    const items = Array.isArray(body?.[key]) ? (body[key] as T[]) : [];
    const nextPageToken = typeof body?.nextPageToken === 'string' ? body.nextPageToken : '';
    const page = { [key]: items, nextPageToken } as ProvisioningPage<K, T>;
    if (typeof body?.totalSize === 'number') page.totalSize = body.totalSize;
    return page;
  }

  /** Every item of a list, following nextPageToken to the last page. */
  async *all<K extends string, T>(path: string, key: K, q: Omit<ProvisioningListQuery, 'pageToken'> = {}): AsyncGenerator<T> {
    const seen = new Set<string>();
    let pageToken = '';
    do {
      const page: ProvisioningPage<K, T> = await this.page<K, T>(path, key, { ...q, pageToken });
      yield* page[key];
      pageToken = page.nextPageToken;
      // A token handed out twice would loop forever.
      if (seen.has(pageToken)) throw new Error(`provisioning: page token repeated while listing ${path}`);
      seen.add(pageToken);
    } while (pageToken !== '');
  }
}
