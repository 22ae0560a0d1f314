// The contract between PlatformHttp and the per-interface authentication schemes.

/** What a strategy may read and change before a request is sent. `body` is the exact text that will be sent. */
export interface AuthRequest {
  method: string;
  url: URL;
  /** Lower-case names; use setHeader to write. */
  headers: Record<string, string>;
  body?: string;
}

export interface AuthStrategy {
  /** Adds credentials to the request (headers only: secrets never go into the URL or body). */
  apply(req: AuthRequest): Promise<void>;
  /**
   * Called once after a 401. Resolve true to have the request re-authenticated and sent once more
   * (e.g. an expired cached token); `req` is the request as it was sent.
   */
  onUnauthorized?(req: AuthRequest): Promise<boolean>;
}

/** Sets a header, replacing any differently-cased copy (fetch would otherwise join both values). */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
  const lower = name.toLowerCase();
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === lower) delete headers[key];
  }
  headers[lower] = value;
}

export function getHeader(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === lower) return value;
  }
  return undefined;
}
