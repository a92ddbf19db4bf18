import { BlockList, isIP } from 'node:net';

/**
 * Matches client addresses against a list of exact addresses and CIDR ranges
 * (`10.0.0.0/8`, `fd00::/8`). IPv4-mapped IPv6 addresses match their IPv4 form.
 */
export function createAddressMatcher(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address ?? '');
    if (!family) throw new Error(`Not an IP address or CIDR range: ${JSON.stringify(entry)}`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, Number(bits), type);
  }
  return (address) => {
    if (!address) return false;
    const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
    const family = isIP(plain);
    return family !== 0 && (list.check(plain, family === 6 ? 'ipv6' : 'ipv4') || list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4'));
  };
}
