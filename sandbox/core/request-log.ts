// Every request addressed to an area, for tests and benchmarks to inspect via GET /_sandbox/requests.
import type { AreaName } from './area-mount.js';

export interface RecordedRequest {
  seq: number;
  area: AreaName;
  region?: string;
  method: string;
  /** Full sandbox path without the query string. */
  path: string;
  query: Record<string, unknown>;
  /** Header values, with credentials replaced by `<scheme> [redacted]`. */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed body; the raw text when it could not be parsed; undefined when there was none. */
  body: unknown;
  status: number;
  time: string;
  durationMs: number;
  faulted: boolean;
}

export interface RequestFilter {
  area?: AreaName;
  method?: string;
  pathContains?: string;
}

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'proxy-authorization', 'cookie']);

export function redactHeaders(headers: Record<string, string | string[] | undefined>): RecordedRequest['headers'] {
  const out: RecordedRequest['headers'] = {};
  for (const [k, v] of Object.entries(headers)) {
    if (!SECRET_HEADERS.has(k.toLowerCase()) || v === undefined) {
      out[k] = v;
      continue;
    }
    // Keep the scheme: tests may assert that a client used Bearer rather than Basic.
    const first = Array.isArray(v) ? (v[0] ?? '') : v;
    const scheme = k.toLowerCase().endsWith('authorization') ? first.trim().split(/\s+/)[0] : undefined;
    out[k] = scheme ? `${scheme} [redacted]` : '[redacted]';
  }
  return out;
}

export class RequestLog {
  private entries: RecordedRequest[] = [];
  private seq = 0;

  /** Oldest entries are dropped past `max`, so long benchmark runs stay bounded. */
  constructor(private readonly max = 50_000) {}

  record(r: Omit<RecordedRequest, 'seq'>): void {
    this.entries.push({ seq: ++this.seq, ...r });
    if (this.entries.length > this.max * 1.1) this.entries = this.entries.slice(-this.max);
  }

  list(f: RequestFilter = {}): RecordedRequest[] {
    const method = f.method?.toUpperCase();
    return this.entries.filter(
      (r) =>
        (f.area === undefined || r.area === f.area) &&
        (method === undefined || r.method === method) &&
        (f.pathContains === undefined || r.path.includes(f.pathContains)),
    );
  }

  clear(): void {
    this.entries = [];
  }
}
