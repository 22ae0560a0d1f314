// Application signed request (Verification, Voice): signs the exact body text and the URL path without query.
import { signApplicationRequest } from '../../common/signing.js';
import { getHeader, setHeader, type AuthRequest, type AuthStrategy } from './strategy.js';

export class ApplicationSignedAuth implements AuthStrategy {
  readonly #appKey: string;
  readonly #appSecret: string;
  readonly #now: () => Date;

  /** `now` is for tests; the timestamp is otherwise taken when the request is signed. */
  constructor(appKey: string, appSecret: string, now: () => Date = () => new Date()) {
    this.#appKey = appKey;
    this.#appSecret = appSecret;
    this.#now = now;
  }

  async apply(req: AuthRequest): Promise<void> {
    const signed = signApplicationRequest({
      appKey: this.#appKey,
      appSecret: this.#appSecret,
      method: req.method,
      path: req.url.pathname,
      contentType: getHeader(req.headers, 'content-type') ?? '',
      body: req.body ?? '',
      timestamp: this.#now().toISOString(),
    });
    for (const [name, value] of Object.entries(signed)) setHeader(req.headers, name, value);
  }
}
