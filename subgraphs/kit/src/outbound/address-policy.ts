import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses the platform may connect to on a user's behalf (the crawler's fetches,
 * form webhooks, budget alerts): the address half of the SSRF defence
 * (`ssrf-guard.ts` applies it to URLs, DNS answers and redirects).
 *
 * Decisions:
 * - Ranges come from ipaddr.js (`range()`), a maintained implementation of the IANA
 *   special-purpose registries, not from a list kept here. Only its `unicast` class counts as
 *   public; every named range is refused: loopback, private, linkLocal (169.254.169.254, the
 *   cloud metadata address, is in it), uniqueLocal (so is AWS's fd00:ec2::254), carrierGradeNat,
 *   unspecified, broadcast, multicast, reserved/documentation, benchmarking, discard, as112,
 *   amt, orchid2, drone remote ID, segment routing, deprecated site-local. Some of those
 *   (amt, as112, orchid2) are globally routable, but no site a crawler needs lives there.
 * - IPv6 must also lie in 2000::/3, the only block IANA allocates for global unicast. That
 *   refuses addresses ipaddr.js calls `unicast` only because no named range covers them, such
 *   as the deprecated IPv4-compatible form `::7f00:1` (= 127.0.0.1), which some stacks still
 *   route to the embedded IPv4 address.
 * - Addresses that embed an IPv4 address are judged by it, which must be public IPv4 unicast:
 *   IPv4-mapped `::ffff:a.b.c.d` (what a dual-stack socket really connects to), RFC 6145
 *   `::ffff:0:a.b.c.d`, the NAT64 well-known prefix 64:ff9b::/96, 6to4 2002:AABB:CCDD::/48
 *   and Teredo (both the server and the de-obfuscated client address). The RFC 8215
 *   local-use NAT64 prefix 64:ff9b:1::/48 is refused outright: its translation is
 *   site-specific, so the embedded address cannot be located or judged.
 * - Text that is not an IP address is never public. Lenient IPv4 forms ipaddr.js accepts
 *   (`0x7f.1`, `2130706433`) are judged by the address they denote.
 * - The allow list (SVC_CRAWL_ALLOW_PRIVATE_HOSTS for the crawler, SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS
 *   for webhooks and alerts) opens non-public addresses deliberately,
 *   e.g. test fixture sites on 127.0.0.1. Entries are exact hostnames (`fixtures.test`),
 *   subdomain wildcards (`*.example.test`: any name below example.test, not example.test
 *   itself), IP addresses (`127.0.0.1`, `::1`, `[::1]`) or CIDR ranges (`10.0.0.0/8`).
 *   An IP entry opens that address for every hostname; a hostname entry opens whatever the
 *   name resolves to EXCEPT link-local addresses and fd00:ec2::254: the metadata endpoints
 *   are the classic SSRF prize, so they open only when listed by address. IPv4-mapped IPv6
 *   addresses match IPv4 entries. Hostnames compare case-insensitively, without a trailing
 *   dot, in their ASCII (punycode) form. A malformed entry throws, naming the entry (a bad
 *   configuration value should stop the start, as elsewhere in the platform).
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface AddressClass {
  /** True only for globally routable unicast addresses (see the module comment). */
  public: boolean;
  /** The range name, for messages: `unicast`, `loopback`, `private`, `ipv4Mapped, embedding 127.0.0.1: loopback`, ... */
  range: string;
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_LOCAL_USE = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');
/** Metadata endpoints outside the link-local ranges (AWS's IPv6 instance metadata service). */
const METADATA_ADDRESSES = ['fd00:ec2::254'].map((a) => ipaddr.parse(a));

function parseAddress(ip: string): Address | undefined {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  try {
    return ipaddr.parse(text);
  } catch {
    return undefined;
  }
}

function ipv4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** The IPv4 addresses an IPv6 address of a translation/tunnel range leads to, or undefined when it embeds none. */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] | undefined {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [ipv4FromParts(p[6], p[7])];
    case '6to4':
      return [ipv4FromParts(p[1], p[2])];
    case 'teredo':
      // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, the client address XORed with 0xffff.
      return [ipv4FromParts(p[2], p[3]), ipv4FromParts(p[6] ^ 0xffff, p[7] ^ 0xffff)];
    default:
      return undefined;
  }
}

/** Classifies an address (IPv4 or IPv6 text, brackets allowed) for the SSRF policy. */
export function classifyAddress(ip: string): AddressClass {
  const address = parseAddress(ip);
  if (!address) return { public: false, range: 'not an IP address' };
  if (address.kind() === 'ipv4') {
    const range = address.range();
    return { public: range === 'unicast', range };
  }
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'rfc6052' && v6.match(NAT64_LOCAL_USE)) return { public: false, range: 'rfc6052 local-use NAT64' };
  const embedded = embeddedIPv4(v6, range);
  if (embedded) {
    const bad = embedded.find((v4) => v4.range() !== 'unicast');
    return bad
      ? { public: false, range: `${range}, embedding ${bad.toString()}: ${bad.range()}` }
      : { public: true, range: `${range}, embedding ${embedded.map(String).join(' and ')}` };
  }
  if (range !== 'unicast') return { public: false, range };
  if (!v6.match(GLOBAL_UNICAST_V6)) return { public: false, range: 'outside global unicast 2000::/3' };
  return { public: true, range };
}

/** True only for globally routable unicast addresses; see the module comment for what counts. */
export function isPublicAddress(ip: string): boolean {
  return classifyAddress(ip).public;
}

/** Lower case, no trailing dot, no brackets around IPv6 literals, punycode for IDNs. */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) return h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (isIP(h)) return h;
  return domainToASCII(h) || h;
}

/** IPv4-mapped IPv6 addresses as IPv4, so they match IPv4 entries. */
function unmapped(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

function matchesRange(address: Address, [network, bits]: [Address, number]): boolean {
  return address.kind() === network.kind() && address.match(network, bits);
}

export interface AllowList {
  /** The entries as given. */
  readonly entries: readonly string[];
  /** Whether the hostname is opened by a hostname entry (exact or wildcard). */
  allowsHost(host: string): boolean;
  /** Whether the address is opened by an IP or CIDR entry. */
  allowsAddress(ip: string): boolean;
  /** Whether `host` may connect to the non-public `ip` (hostname entries never open link-local or metadata addresses). */
  allows(host: string, ip: string): boolean;
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** An allow list from configuration entries (see the module comment for their forms). Throws on a malformed entry. */
export function createAllowList(entries: readonly string[]): AllowList {
  const exactHosts = new Set<string>();
  const hostSuffixes: string[] = [];
  const ranges: [Address, number][] = [];

  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    const invalid = (why: string) => new Error(`Allow-list entry ${JSON.stringify(raw)} ${why}`);
    const unbracketed = entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry;
    const slash = unbracketed.indexOf('/');
    const addressPart = slash === -1 ? unbracketed : unbracketed.slice(0, slash);
    if (isIP(addressPart)) {
      const address = ipaddr.parse(addressPart);
      const max = address.kind() === 'ipv4' ? 32 : 128;
      const bitsText = slash === -1 ? String(max) : unbracketed.slice(slash + 1);
      const bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
      if (!(bits >= 0 && bits <= max)) throw invalid(`has an invalid prefix length; expected 0-${max}`);
      const plain = unmapped(address);
      ranges.push(plain === address ? [address, bits] : [plain, Math.max(0, bits - 96)]);
      continue;
    }
    if (ipaddr.IPv4.isValid(addressPart) || /^[\d.]+$/.test(addressPart)) {
      throw invalid('is not a dotted-quad IPv4 address; write addresses as a.b.c.d or a.b.c.d/bits');
    }
    const wildcard = entry.startsWith('*.');
    const host = normalizeHost(wildcard ? entry.slice(2) : entry);
    if (!HOSTNAME.test(host)) throw invalid('is neither a hostname, `*.` + hostname, an IP address nor a CIDR range');
    if (wildcard) hostSuffixes.push(`.${host}`);
    else exactHosts.add(host);
  }

  const allowsHost = (host: string) => {
    const h = normalizeHost(host);
    return exactHosts.has(h) || hostSuffixes.some((suffix) => h.endsWith(suffix));
  };
  const allowsAddress = (ip: string) => {
    const address = parseAddress(ip);
    if (!address) return false;
    const candidates = [address, unmapped(address)];
    return ranges.some((range) => candidates.some((candidate) => matchesRange(candidate, range)));
  };
  const isMetadataLike = (ip: string) => {
    const address = parseAddress(ip);
    if (!address) return true;
    const plain = unmapped(address);
    return plain.range() === 'linkLocal' || METADATA_ADDRESSES.some((m) => m.kind() === plain.kind() && m.toString() === plain.toString());
  };

  return {
    entries: [...entries],
    allowsHost,
    allowsAddress,
    allows: (host, ip) => allowsAddress(ip) || (allowsHost(host) && !isMetadataLike(ip)),
  };
}

const NOTHING_ALLOWED = createAllowList([]);

export type AddressCheck = { ok: true } | { ok: false; reason: string };

/**
 * Whether connecting to `ip` on behalf of `host` (a hostname, or the address itself for an IP
 * literal URL) is allowed: public addresses always, others only when the allow list opens them.
 * The reason names the host, the address and its range.
 */
export function checkAddress(host: string, ip: string, allow: AllowList = NOTHING_ALLOWED): AddressCheck {
  const verdict = classifyAddress(ip);
  if (verdict.public || allow.allows(host, ip)) return { ok: true };
  const hostName = normalizeHost(host);
  const literal = parseAddress(hostName) !== undefined;
  const what = literal ? `${ip} (${verdict.range}) is not allowed` : `${hostName} resolves to ${ip} (${verdict.range}), which is not allowed`;
  const hint = !literal && allow.allowsHost(host) ? '; hostname entries never open link-local or metadata addresses, list the address itself' : '';
  return { ok: false, reason: `${what}${hint}` };
}
