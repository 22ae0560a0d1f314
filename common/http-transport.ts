// An HTTP client for server-to-server calls: node:http(s) with keep-alive agents, which does less work
// per call than global fetch (no WHATWG streams).
import http from 'node:http';
import https from 'node:https';

interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

interface TransportResponse {
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
    const outgoing = (secure ? https : http).request(
      url,
      { method: req.method, headers, agent: secure ? agents.https : agents.http, signal: req.signal },
      (res) => {
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
      },
    );
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
