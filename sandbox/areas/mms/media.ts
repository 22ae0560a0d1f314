// The platform fetches each media URL: 200 (or one redirect 301/302/303/307/308, followed once) with
// Content-Length and Content-Type; chunked answers are refused. Results are cached a minute per URL so a
// campaign of thousands of sends fetches each file once.
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CACHE_MS = 60_000;
const TIMEOUT_MS = 5_000;

export class MediaChecker {
  /** Not kept: a minute's cache of fetches, refetched after a restart. */
  private readonly cache = new Map<string, { at: number; problem: Promise<string | undefined> }>();

  /** Why the platform could not use the URL, or undefined when it can. */
  check(url: string): Promise<string | undefined> {
    const hit = this.cache.get(url);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.problem;
    const problem = fetchOnce(url);
    this.cache.set(url, { at: Date.now(), problem });
    return problem;
  }

  reset(): void {
    this.cache.clear();
  }
}

async function fetchOnce(url: string, redirected = false): Promise<string | undefined> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    return `${url} could not be fetched: ${(err as Error).message}`;
  }
  await res.body?.cancel().catch(() => undefined);
  if (REDIRECTS.has(res.status)) {
    const location = res.headers.get('location');
    if (redirected) return `${url} redirects more than once`;
    if (!location) return `${url} redirects without a Location`;
    return fetchOnce(new URL(location, url).toString(), true);
  }
  if (res.status !== 200) return `${url} answered ${res.status}`;
  if (!res.headers.get('content-length')) return `${url} has no Content-Length (chunked transfer is refused)`;
  if (!res.headers.get('content-type')) return `${url} has no Content-Type`;
  return undefined;
}
