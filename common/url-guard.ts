// Where an event subscription may send: an http(s) URL to a public address, unless configuration allows the
// machine's own network (npm start). Checked when a subscription is made and again at every connection (the
// lookup below), so a name that resolves elsewhere later (DNS rebinding) still cannot reach inside.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** A public unicast address: not loopback, private, link-local, unique-local, CGNAT, multicast or reserved. */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  return addr.range() === 'unicast';
}

/** What is wrong with a subscription URL in itself (scheme, credentials), in words; undefined when nothing. */
export function urlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be an http or https URL, not ${url.protocol.replace(':', '')}`;
  if (url.username || url.password) return 'must not carry a user name or password (the signature authenticates relayflow)';
  if (url.hash) return 'must not have a fragment';
  return undefined;
}

const lookupAll = (host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** Resolves the URL's host: a problem in words when any address it names is not public; undefined when all are. */
export async function privateAddressProblem(raw: string): Promise<string | undefined> {
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  try {
    addresses = ipaddr.isValid(host) ? [{ address: host, family: host.includes(':') ? 6 : 4 }] : await lookupAll(host);
  } catch {
    return `its host ${host} does not resolve`;
  }
  const inside = addresses.find((a) => !isPublicAddress(a.address));
  return inside ? `its host ${host} is a loopback, private or reserved address (${inside.address}); only public addresses are allowed` : undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that refuses to connect to an address that is not public. */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) {
      const e: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to ${refused.address}, not a public address`);
      e.code = 'EADDRNOTPUBLIC';
      return callback(e, []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}
