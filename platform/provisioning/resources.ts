// The calls every provisioning resource collection answers alike: create, read one, list (a page, or every item
// following nextPageToken), each under the project. A resource's own calls (launch, submit, delete, which answer
// differently per resource) sit in its subclass.
import { seg, type ProvisioningListQuery, type ProvisioningTransport } from './transport.js';
import type { ProvisioningPage } from '../../common/wire/provisioning.js';

export class ProvisioningResources<T, K extends string, C, Q extends ProvisioningListQuery = ProvisioningListQuery> {
  protected readonly t: ProvisioningTransport;

  /** `collection`: the path under the project, e.g. `chata/senders`; `key`: the list answer's array field. */
  constructor(
    transport: ProvisioningTransport,
    protected readonly collection: string,
    private readonly key: K,
  ) {
    this.t = transport;
  }

  /** `collection/{id}` plus a suffix such as `:launch` or `/questionnaire`. */
  protected item(id: string, suffix = ''): string {
    return `${this.collection}/${seg(id)}${suffix}`;
  }

  create(request: C): Promise<T> {
    return this.t.call<T>('POST', this.collection, { json: request });
  }

  get(id: string): Promise<T> {
    return this.t.call<T>('GET', this.item(id));
  }

  listPage(query: Q = {} as Q): Promise<ProvisioningPage<K, T>> {
    return this.t.page<K, T>(this.collection, this.key, query);
  }

  listAll(query: Omit<Q, 'pageToken'> = {} as Omit<Q, 'pageToken'>): AsyncGenerator<T> {
    return this.t.all<K, T>(this.collection, this.key, query);
  }
}
