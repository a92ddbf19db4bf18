import { isIP } from 'node:net';

/**
 * The block a client address is throttled as: an IPv4 address itself (IPv4-mapped IPv6 too), an
 * IPv6 address by its /64, since one subscriber usually holds a whole /64 and could otherwise
 * take a fresh address for every guess. Anything else (not an address) as it is.
 */
export function addressBlockOf(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped && isIP(mapped[1]!) === 4) return mapped[1]!;
  if (isIP(address) !== 6) return address;
  const groupsIn = (part: string) => (part ? part.split(':').reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0) : 0);
  const [head = '', tail = ''] = address.split('::');
  const given = head ? head.split(':') : [];
  const groups = address.includes('::') ? [...given, ...Array<string>(Math.max(0, 8 - groupsIn(head) - groupsIn(tail))).fill('0'), ...(tail ? tail.split(':') : [])] : given;
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}
