// MMS: the account API key travels in the x-api-key header only, never in the body or query string.
import { setHeader, type AuthRequest, type AuthStrategy } from './strategy.js';

export class ApiKeyAuth implements AuthStrategy {
  readonly #apiKey: string;

  constructor(apiKey: string) {
    this.#apiKey = apiKey;
  }

  async apply(req: AuthRequest): Promise<void> {
    setHeader(req.headers, 'x-api-key', this.#apiKey);
  }
}
