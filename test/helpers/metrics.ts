// Reading a Prometheus /metrics page in tests: samples with their labels, and sums over a label subset.
import assert from 'node:assert/strict';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL)) labels[k!] = v!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  assert.equal(res.status, 200, `GET ${url}`);
  return parseMetrics(await res.text());
}

/** The sum of every sample of `name` whose labels include `labels` (0 when there is none). */
export function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

/** Callbacks the API's intakes answered as repeats of an event handed over before (its /metrics, every kind). */
export async function duplicateCallbacks(api: (o: { method: 'GET'; url: string }) => Promise<{ statusCode: number; body: string }>): Promise<number> {
  const res = await api({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200, 'GET /metrics');
  return total(parseMetrics(res.body), 'relayflow_callbacks_total', { outcome: 'duplicate' });
}

/** Waits until the intakes answered more repeats than `before` (every 100 ms, up to `ms`). */
export async function waitForDuplicateCallbacks(api: Parameters<typeof duplicateCallbacks>[0], before: number, ms = 20_000): Promise<number> {
  const deadline = Date.now() + ms;
  for (;;) {
    const now = await duplicateCallbacks(api);
    if (now > before) return now;
    if (Date.now() > deadline) throw new Error(`no repeated callback was answered as a duplicate within ${ms} ms (still ${now})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
