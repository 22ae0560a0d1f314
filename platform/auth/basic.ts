// HTTP Basic: key ID / key secret (or application key / secret). Prototyping only on the platform.
import { setHeader, type AuthRequest, type AuthStrategy } from './strategy.js';

function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

export class BasicAuth implements AuthStrategy {
  readonly #authorization: string;

  constructor(username: string, password: string) {
    this.#authorization = basicAuthorization(username, password);
  }

  async apply(req: AuthRequest): Promise<void> {
    setHeader(req.headers, 'authorization', this.#authorization);
  }
}
