// An HTTP client for server-to-server calls: node:http(s) with keep-alive agents, which costs far less per
// call than global fetch (no WHATWG streams); a fetch-backed one for tests that inject a fetch.
import http from 'node:http';
import https from 'node:https';

export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  text: string;
}

export type Transport = (url: URL, req: TransportRequest) => Promise<TransportResponse>;

const agents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

export const nodeTransport: Transport = (url, req) =>
  new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:';
    const headers = req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
    const outgoing = (secure ? https : http).request(url, { method: req.method, headers, agent: secure ? agents.https : agents.http, signal: req.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({ status: res.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });

export function fetchTransport(f: typeof fetch): Transport {
  return async (url, req) => {
    const response = await f(url, { method: req.method, headers: req.headers, body: req.body, signal: req.signal });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { status: response.status, headers, text: await response.text() };
  };
}
