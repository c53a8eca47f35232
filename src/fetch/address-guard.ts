import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { buildConnector } from 'undici';

/**
 * Which addresses a download may reach. A feed, an export or a redirect must not turn pdsnap into
 * a way into the machine's own network: a loopback, private, link-local (169.254.169.254 is where
 * cloud metadata lives) or otherwise internal address is refused, unless the configuration names
 * that very host (a test server on 127.0.0.1, a mirror on the company network).
 *
 * The address is checked where the connection is made, on what DNS answered for it, so a name that
 * resolves to a public address when first looked at and to an internal one at connect time (DNS
 * rebinding) is refused too. An address written as an IP is refused before any connection.
 */

const RANGES: ReadonlyArray<readonly [network: string, prefix: number, family: 'ipv4' | 'ipv6', what: string]> = [
  ['0.0.0.0', 8, 'ipv4', 'an unspecified address'],
  ['10.0.0.0', 8, 'ipv4', 'a private address'],
  ['100.64.0.0', 10, 'ipv4', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'ipv4', 'a loopback address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address, where cloud metadata services live'],
  ['172.16.0.0', 12, 'ipv4', 'a private address'],
  ['192.0.0.0', 24, 'ipv4', 'a reserved address'],
  ['192.168.0.0', 16, 'ipv4', 'a private address'],
  ['198.18.0.0', 15, 'ipv4', 'a reserved address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['::1', 128, 'ipv6', 'a loopback address'],
  ['fc00::', 7, 'ipv6', 'a private (unique local) address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
];

/** One BlockList per range, so that a refusal can say which kind of address it was (IPv4-mapped IPv6 included). */
const BLOCKS = RANGES.map(([network, prefix, family, what]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { list, what };
});

/** Why `address` (an IP) may not be reached, or null when it is a public address. */
export function addressRefusal(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return BLOCKS.find(({ list }) => list.check(address, type))?.what ?? null;
}

/** A connection refused by the guard; never retried. */
export class RefusedAddress extends Error {
  override readonly name = 'RefusedAddress';
  readonly code = 'PDSNAP_REFUSED_ADDRESS';
}

/** The hosts (lower case, IPv6 without brackets) that the configuration names: they may be internal. */
export type TrustedHosts = ReadonlySet<string>;

/** A URL's host as a set member: lower case, without the brackets of an IPv6 literal. */
export function hostKey(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** The refusal of a host written as an IP (checked before connecting), or null. */
export function literalHostRefusal(hostname: string, trusted: TrustedHosts): string | null {
  const host = hostKey(hostname);
  if (trusted.has(host)) return null;
  const what = addressRefusal(host);
  return what === null ? null : `${host} is ${what}; refused (only a host the configuration names may be internal)`;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * undici's connector, with every address checked as the socket is opened: an IP literal before
 * connecting, a name through a DNS lookup whose answer is checked before the socket uses it.
 */
export function guardedConnector(trusted: TrustedHosts, connectTimeoutMs: number): buildConnector.connector {
  const lookup = (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!trusted.has(hostKey(hostname))) {
        for (const { address } of addresses) {
          const what = addressRefusal(address);
          if (what !== null) {
            return callback(
              new RefusedAddress(
                `${hostname} resolves to ${address}, ${what}; refused (only a host the configuration names may be internal)`,
              ),
              [],
            );
          }
        }
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
  const connect = buildConnector({ timeout: connectTimeoutMs, lookup } as buildConnector.BuildOptions);
  return (options, callback) => {
    const refusal = literalHostRefusal(options.hostname, trusted);
    if (refusal !== null) {
      callback(new RefusedAddress(refusal), null);
      return;
    }
    connect(options, callback);
  };
}
