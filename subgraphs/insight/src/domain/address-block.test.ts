import { describe, expect, it } from '@jest/globals';
import { addressBlockOf } from './address-block.js';

describe('addressBlockOf', () => {
  it('keeps IPv4 addresses, unwraps IPv4-mapped ones, and takes the /64 of IPv6', () => {
    expect(addressBlockOf('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBlockOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBlockOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressBlockOf('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(addressBlockOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBlockOf('::1')).toBe('0:0:0:0::/64');
    expect(addressBlockOf('64:ff9b::198.51.100.1')).toBe('64:ff9b:0:0::/64');
    expect(addressBlockOf('unknown')).toBe('unknown');
  });
});
