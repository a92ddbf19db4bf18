import { describe, expect, it } from '@jest/globals';
import { checkAddress, classifyAddress, createAllowList, isPublicAddress, normalizeHost } from './address-policy.js';

describe('isPublicAddress: public unicast', () => {
  it.each(['1.1.1.1', '8.8.8.8', '93.184.216.34', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e'])(
    'accepts %s',
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );
});

describe('isPublicAddress: refused ranges', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'], // cloud metadata (AWS, GCP, Azure)
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'], // TEST-NET-1
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'], // benchmarking
    ['240.0.0.1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['192.175.48.1', 'as112'],
    ['192.52.193.1', 'amt'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'], // AWS IPv6 metadata
    ['ff02::1', 'multicast'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['2001:3::1', 'amt'],
    ['2001:4:112::1', 'as112v6'],
    ['2001:20::1', 'orchid2'],
    ['2001:30::1', 'droneRemoteIdProtocolEntityTags'],
    ['5f00::1', 'segmentRouting'],
    ['::7f00:1', 'outside global unicast 2000::/3'], // deprecated IPv4-compatible ::127.0.0.1
    ['4000::1', 'outside global unicast 2000::/3'],
    ['64:ff9b:1::a00:1', 'rfc6052 local-use NAT64'],
  ])('refuses %s (%s)', (ip, range) => {
    expect(classifyAddress(ip)).toEqual({ public: false, range });
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(['', 'localhost', 'example.com', '1.2.3.4.5', '::g', '10.0.0.0/8'])('refuses %j, which is not an address', (text) => {
    expect(classifyAddress(text)).toEqual({ public: false, range: 'not an IP address' });
  });

  it('judges lenient IPv4 spellings by the address they denote', () => {
    expect(isPublicAddress('2130706433')).toBe(false);
    expect(isPublicAddress('0x7f.1')).toBe(false);
    expect(isPublicAddress('0x08080808')).toBe(true);
  });

  it('accepts bracketed IPv6', () => {
    expect(isPublicAddress('[::1]')).toBe(false);
    expect(isPublicAddress('[2606:4700:4700::1111]')).toBe(true);
  });
});

describe('isPublicAddress: IPv6 forms that embed IPv4 are judged by the IPv4 address', () => {
  it.each([
    ['::ffff:127.0.0.1', 'ipv4Mapped, embedding 127.0.0.1: loopback'],
    ['::ffff:7f00:1', 'ipv4Mapped, embedding 127.0.0.1: loopback'],
    ['::ffff:169.254.169.254', 'ipv4Mapped, embedding 169.254.169.254: linkLocal'],
    ['::ffff:10.0.0.1', 'ipv4Mapped, embedding 10.0.0.1: private'],
    ['::ffff:0:127.0.0.1', 'rfc6145, embedding 127.0.0.1: loopback'],
    ['64:ff9b::10.0.0.1', 'rfc6052, embedding 10.0.0.1: private'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052, embedding 169.254.169.254: linkLocal'],
    ['2002:7f00:1::1', '6to4, embedding 127.0.0.1: loopback'],
    ['2002:c0a8:101::', '6to4, embedding 192.168.1.1: private'],
    // Teredo server 192.168.0.1, client 8.8.8.8 (obfuscated as f7f7:f7f7).
    ['2001:0:c0a8:1::f7f7:f7f7', 'teredo, embedding 192.168.0.1: private'],
    // Teredo server 8.8.8.8, client 127.0.0.1 (obfuscated as 80ff:fffe).
    ['2001:0:808:808::80ff:fffe', 'teredo, embedding 127.0.0.1: loopback'],
  ])('refuses %s', (ip, range) => {
    expect(classifyAddress(ip)).toEqual({ public: false, range });
  });

  it.each(['::ffff:8.8.8.8', '::ffff:0:8.8.8.8', '64:ff9b::1.1.1.1', '2002:808:808::1', '2001:0:808:808::f7f7:f7f7'])(
    'accepts %s, whose IPv4 address is public',
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );
});

describe('normalizeHost', () => {
  it.each([
    ['Example.COM.', 'example.com'],
    ['[::1]', '::1'],
    [' bücher.example ', 'xn--bcher-kva.example'],
    ['127.0.0.1', '127.0.0.1'],
  ])('%j → %j', (input, output) => {
    expect(normalizeHost(input)).toBe(output);
  });
});

describe('createAllowList', () => {
  it('opens exact hostnames, case- and trailing-dot-insensitively', () => {
    const allow = createAllowList(['Fixtures.Test']);
    expect(allow.allowsHost('fixtures.test')).toBe(true);
    expect(allow.allowsHost('FIXTURES.test.')).toBe(true);
    expect(allow.allowsHost('a.fixtures.test')).toBe(false);
    expect(allow.allowsHost('fixtures.test.evil.com')).toBe(false);
    expect(allow.allows('fixtures.test', '127.0.0.1')).toBe(true);
    expect(allow.allows('other.test', '127.0.0.1')).toBe(false);
  });

  it('opens subdomains with *.suffix, but not the suffix itself nor look-alikes', () => {
    const allow = createAllowList(['*.example.test']);
    expect(allow.allowsHost('a.example.test')).toBe(true);
    expect(allow.allowsHost('a.b.example.test')).toBe(true);
    expect(allow.allowsHost('example.test')).toBe(false);
    expect(allow.allowsHost('badexample.test')).toBe(false);
  });

  it('opens IP addresses and CIDR ranges for any hostname', () => {
    const allow = createAllowList(['127.0.0.1', '10.0.0.0/8', '[::1]', 'fd00::/8']);
    expect(allow.allowsAddress('127.0.0.1')).toBe(true);
    expect(allow.allowsAddress('127.0.0.2')).toBe(false);
    expect(allow.allowsAddress('10.200.3.4')).toBe(true);
    expect(allow.allowsAddress('11.0.0.1')).toBe(false);
    expect(allow.allowsAddress('::1')).toBe(true);
    expect(allow.allowsAddress('fd12::1')).toBe(true);
    expect(allow.allowsAddress('fe80::1')).toBe(false);
    expect(allow.allows('anything.example', '10.1.2.3')).toBe(true);
  });

  it('matches IPv4-mapped IPv6 addresses against IPv4 entries, and mapped entries against IPv4 addresses', () => {
    expect(createAllowList(['127.0.0.1']).allowsAddress('::ffff:127.0.0.1')).toBe(true);
    expect(createAllowList(['10.0.0.0/8']).allowsAddress('::ffff:a01:203')).toBe(true);
    expect(createAllowList(['::ffff:10.0.0.0/104']).allowsAddress('10.9.9.9')).toBe(true);
  });

  it('never opens link-local or metadata addresses through a hostname entry, only by address', () => {
    const byName = createAllowList(['fixtures.test', '*.corp.test']);
    expect(byName.allows('fixtures.test', '169.254.169.254')).toBe(false);
    expect(byName.allows('x.corp.test', 'fe80::1')).toBe(false);
    expect(byName.allows('fixtures.test', 'fd00:ec2::254')).toBe(false);
    expect(byName.allows('fixtures.test', '::ffff:169.254.169.254')).toBe(false);
    expect(byName.allows('fixtures.test', 'fd00:ec2::253')).toBe(true);
    const byAddress = createAllowList(['169.254.169.254', 'fd00:ec2::254']);
    expect(byAddress.allows('metadata.test', '169.254.169.254')).toBe(true);
    expect(byAddress.allows('metadata.test', 'fd00:ec2::254')).toBe(true);
  });

  it('ignores blank entries and keeps the entries as given', () => {
    const allow = createAllowList([' ', '', 'a.test']);
    expect(allow.entries).toEqual([' ', '', 'a.test']);
    expect(allow.allowsHost('a.test')).toBe(true);
  });

  it.each([
    ['*', 'is neither'],
    ['*.', 'is neither'],
    ['http://a.test', 'is neither'],
    ['a b', 'is neither'],
    ['-a.test', 'is neither'],
    ['10.0.0.0/33', 'has an invalid prefix length; expected 0-32'],
    ['10.0.0.0/x', 'has an invalid prefix length'],
    ['::1/129', 'has an invalid prefix length; expected 0-128'],
    ['127.1', 'is not a dotted-quad IPv4 address'],
    ['0x7f000001', 'is not a dotted-quad IPv4 address'],
    ['10.0.0/8', 'is not a dotted-quad IPv4 address'],
  ])('refuses the malformed entry %j', (entry, message) => {
    expect(() => createAllowList([entry])).toThrow(`Allow-list entry ${JSON.stringify(entry)} ${message}`);
  });
});

describe('checkAddress', () => {
  it('accepts public addresses without an allow list', () => {
    expect(checkAddress('example.com', '93.184.216.34')).toEqual({ ok: true });
  });

  it('names the host, the address and its range when refusing', () => {
    expect(checkAddress('example.internal', '10.1.2.3')).toEqual({
      ok: false,
      reason: 'example.internal resolves to 10.1.2.3 (private), which is not allowed',
    });
    expect(checkAddress('Rebind.Example.', '::ffff:127.0.0.1')).toEqual({
      ok: false,
      reason: 'rebind.example resolves to ::ffff:127.0.0.1 (ipv4Mapped, embedding 127.0.0.1: loopback), which is not allowed',
    });
  });

  it('words IP-literal hosts without "resolves to"', () => {
    expect(checkAddress('169.254.169.254', '169.254.169.254')).toEqual({ ok: false, reason: '169.254.169.254 (linkLocal) is not allowed' });
    expect(checkAddress('[::1]', '::1')).toEqual({ ok: false, reason: '::1 (loopback) is not allowed' });
  });

  it('lets the allow list open private addresses', () => {
    const allow = createAllowList(['fixtures.test', '10.0.0.0/8']);
    expect(checkAddress('fixtures.test', '127.0.0.1', allow)).toEqual({ ok: true });
    expect(checkAddress('db.internal', '10.1.2.3', allow)).toEqual({ ok: true });
    expect(checkAddress('db.internal', '192.168.1.1', allow)).toEqual({
      ok: false,
      reason: 'db.internal resolves to 192.168.1.1 (private), which is not allowed',
    });
  });

  it('explains why an allow-listed hostname still may not reach a metadata address', () => {
    const allow = createAllowList(['fixtures.test']);
    expect(checkAddress('fixtures.test', '169.254.169.254', allow)).toEqual({
      ok: false,
      reason:
        'fixtures.test resolves to 169.254.169.254 (linkLocal), which is not allowed; hostname entries never open link-local or metadata addresses, list the address itself',
    });
  });
});
