import { describe, expect, it } from '@jest/globals';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SvcError } from '../errors.js';
import { createSsrfGuard, type ResolvedAddress, type Resolver } from './ssrf-guard.js';

/** A resolver over a fixed table; unknown names fail like getaddrinfo does. Records each query. */
function fakeDns(table: Record<string, string[]>): Resolver & { queries: string[] } {
  const queries: string[] = [];
  const resolver = async (host: string): Promise<ResolvedAddress[]> => {
    queries.push(host);
    const answers = table[host];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { queries });
}

const dns = fakeDns({
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example': ['10.1.2.3'],
  'mixed.example': ['93.184.216.34', '127.0.0.1'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  'fixtures.test': ['127.0.0.1'],
  'a.fixtures.test': ['127.0.0.1'],
  'db.internal': ['10.9.8.7'],
  'empty.example': [],
});

async function rejection(promise: Promise<unknown>): Promise<SvcError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(SvcError);
  return caught as SvcError;
}

async function forbidden(promise: Promise<unknown>): Promise<string> {
  const error = await rejection(promise);
  expect(error.code).toBe('FORBIDDEN');
  expect(error.status).toBe(403);
  expect(error.extensions.slug).toBe('address-not-allowed');
  return error.message;
}

describe('checkUrl: hostnames', () => {
  const guard = createSsrfGuard({ allow: [], resolve: dns });

  it('accepts a host whose every address is public, returning them all', async () => {
    const checked = await guard.checkUrl('https://public.example/a?b=c#d');
    expect(checked.url.href).toBe('https://public.example/a?b=c#d');
    expect(checked.addresses).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  it('refuses a host resolving to a private address, naming host, address and range', async () => {
    expect(await forbidden(guard.checkUrl('http://internal.example/page'))).toBe(
      'Refusing to fetch http://internal.example/page: internal.example resolves to 10.1.2.3 (private), which is not allowed',
    );
  });

  it('refuses a host when any one of its addresses is not public (DNS rebinding)', async () => {
    expect(await forbidden(guard.checkUrl('http://mixed.example/'))).toBe(
      'Refusing to fetch http://mixed.example/: mixed.example resolves to 127.0.0.1 (loopback), which is not allowed',
    );
  });

  it('refuses an IPv4-mapped IPv6 answer for a loopback address', async () => {
    expect(await forbidden(guard.checkUrl('http://mapped.example/'))).toContain(
      'mapped.example resolves to ::ffff:127.0.0.1 (ipv4Mapped, embedding 127.0.0.1: loopback)',
    );
  });

  it('refuses a host resolving to the cloud metadata address', async () => {
    expect(await forbidden(guard.checkUrl('http://metadata.example/latest/meta-data/'))).toContain('169.254.169.254 (linkLocal)');
  });

  it('reports a name that does not resolve as UPSTREAM_ERROR, not as forbidden', async () => {
    const error = await rejection(guard.checkUrl('http://nowhere.example/'));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.extensions.slug).toBe('host-not-resolved');
    expect(error.message).toBe('Could not resolve nowhere.example (ENOTFOUND)');
    const empty = await rejection(guard.checkUrl('http://empty.example/'));
    expect(empty.message).toBe('Could not resolve empty.example (no addresses)');
  });

  it('resolves the name in lower case without the trailing dot', async () => {
    dns.queries.length = 0;
    await guard.checkUrl('http://PUBLIC.Example./');
    expect(dns.queries).toEqual(['public.example']);
  });
});

describe('checkUrl: schemes, credentials, ports, malformed URLs', () => {
  const guard = createSsrfGuard({ resolve: dns });

  it.each(['file:///etc/passwd', 'ftp://public.example/file', 'gopher://public.example:70/_GET', 'data:text/plain,hi', 'javascript:alert(1)', 'ws://public.example/'])(
    'refuses %s',
    async (url) => {
      expect(await forbidden(guard.checkUrl(url))).toMatch(/: only http and https URLs are fetched, not [a-z]+:$/);
    },
  );

  it('accepts any port', async () => {
    expect((await guard.checkUrl('http://public.example:8081/')).url.port).toBe('8081');
  });

  it('strips credentials from the URL and never puts them in messages', async () => {
    const checked = await guard.checkUrl('https://user:secret@public.example/x');
    expect(checked.url.href).toBe('https://public.example/x');
    const message = await forbidden(guard.checkUrl('http://user:secret@internal.example/'));
    expect(message).not.toContain('secret');
    expect(message).toMatch(/^Refusing to fetch http:\/\/internal\.example\/:/);
  });

  it('judges http://public.example@127.0.0.1/ by its real host, 127.0.0.1', async () => {
    expect(await forbidden(guard.checkUrl('http://public.example@127.0.0.1/'))).toBe(
      'Refusing to fetch http://127.0.0.1/: 127.0.0.1 (loopback) is not allowed',
    );
  });

  it('refuses an unparsable URL as BAD_USER_INPUT', async () => {
    const error = await rejection(guard.checkUrl('not a url'));
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.extensions.slug).toBe('invalid-url');
  });

  it('accepts URL objects', async () => {
    expect((await guard.checkUrl(new URL('https://public.example/'))).addresses).toHaveLength(2);
  });
});

describe('checkUrl: IP-literal hosts', () => {
  const dnsNeverAsked = fakeDns({});
  const guard = createSsrfGuard({ resolve: dnsNeverAsked });

  it.each([
    ['http://127.0.0.1/', '127.0.0.1 (loopback)'],
    ['http://2130706433/', '127.0.0.1 (loopback)'], // decimal
    ['http://0x7f.1/', '127.0.0.1 (loopback)'], // hex, two parts
    ['http://0x7f000001/', '127.0.0.1 (loopback)'],
    ['http://017700000001/', '127.0.0.1 (loopback)'], // octal
    ['http://0177.0.0.1/', '127.0.0.1 (loopback)'],
    ['http://127.1/', '127.0.0.1 (loopback)'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1 (loopback)'], // percent-encoded
    ['http://0/', '0.0.0.0 (unspecified)'],
    ['http://10.0.0.1:8080/', '10.0.0.1 (private)'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 (linkLocal)'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254 (linkLocal)'],
    ['http://100.64.0.1/', '100.64.0.1 (carrierGradeNat)'],
    ['http://[::1]/', '::1 (loopback)'],
    ['http://[::]/', ':: (unspecified)'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 (ipv4Mapped, embedding 127.0.0.1: loopback)'],
    ['http://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe (ipv4Mapped, embedding 169.254.169.254: linkLocal)'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254 (uniqueLocal)'],
    ['http://[fe80::1]/', 'fe80::1 (linkLocal)'],
    ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1 (rfc6052, embedding 127.0.0.1: loopback)'],
  ])('refuses %s (the URL parser normalises the host first)', async (url, what) => {
    expect(await forbidden(guard.checkUrl(url))).toContain(`: ${what} is not allowed`);
    expect(dnsNeverAsked.queries).toEqual([]);
  });

  it('shows the normalised dotted form in the message', async () => {
    expect(await forbidden(guard.checkUrl('http://0x7f.1/admin'))).toBe('Refusing to fetch http://127.0.0.1/admin: 127.0.0.1 (loopback) is not allowed');
  });

  it('accepts public IP literals without DNS', async () => {
    expect((await guard.checkUrl('http://8.8.8.8/')).addresses).toEqual(['8.8.8.8']);
    expect((await guard.checkUrl('http://134744072/')).url.hostname).toBe('8.8.8.8');
    expect((await guard.checkUrl('http://[2606:4700:4700::1111]/')).addresses).toEqual(['2606:4700:4700::1111']);
    expect(dnsNeverAsked.queries).toEqual([]);
  });
});

describe('checkUrl: the allow list (SVC_CRAWL_ALLOW_PRIVATE_HOSTS)', () => {
  it('opens an allow-listed hostname and its subdomains by wildcard', async () => {
    const guard = createSsrfGuard({ allow: ['fixtures.test', '*.fixtures.test'], resolve: dns });
    expect((await guard.checkUrl('http://fixtures.test:4567/')).addresses).toEqual(['127.0.0.1']);
    expect((await guard.checkUrl('http://a.fixtures.test/')).addresses).toEqual(['127.0.0.1']);
    await forbidden(guard.checkUrl('http://internal.example/'));
  });

  it('opens an allow-listed CIDR range for any name and IP literals in it', async () => {
    const guard = createSsrfGuard({ allow: ['10.0.0.0/8', '127.0.0.1'], resolve: dns });
    expect((await guard.checkUrl('http://internal.example/')).addresses).toEqual(['10.1.2.3']);
    expect((await guard.checkUrl('http://db.internal/')).addresses).toEqual(['10.9.8.7']);
    expect((await guard.checkUrl('http://127.0.0.1:3000/')).addresses).toEqual(['127.0.0.1']);
    expect((await guard.checkUrl('http://[::ffff:127.0.0.1]/')).addresses).toEqual(['::ffff:7f00:1']);
    await forbidden(guard.checkUrl('http://127.0.0.2/'));
    await forbidden(guard.checkUrl('http://metadata.example/'));
  });

  it('still refuses metadata addresses for an allow-listed hostname', async () => {
    const guard = createSsrfGuard({ allow: ['metadata.example'], resolve: dns });
    expect(await forbidden(guard.checkUrl('http://metadata.example/'))).toContain('hostname entries never open link-local or metadata addresses');
  });

  it('refuses to start with a malformed entry', () => {
    expect(() => createSsrfGuard({ allow: ['127.1'] })).toThrow('Allow-list entry "127.1"');
  });
});

describe('guardRedirect', () => {
  const guard = createSsrfGuard({ resolve: dns });

  it('resolves relative locations against the URL that answered', async () => {
    const from = new URL('https://public.example/a/b?c');
    expect((await guard.guardRedirect(from, '../d')).href).toBe('https://public.example/d');
    expect((await guard.guardRedirect(from, '//public.example/e')).href).toBe('https://public.example/e');
    expect((await guard.guardRedirect(from, 'http://public.example/f')).href).toBe('http://public.example/f');
  });

  it('refuses a redirect to a private address, naming both URLs', async () => {
    expect(await forbidden(guard.guardRedirect('https://public.example/', 'http://internal.example/admin'))).toBe(
      'Refusing to fetch http://internal.example/admin: internal.example resolves to 10.1.2.3 (private), which is not allowed (redirected from https://public.example/)',
    );
  });

  it.each(['http://169.254.169.254/latest/meta-data/', 'http://[::1]:8080/', 'http://2130706433/', 'file:///etc/passwd', 'gopher://public.example/'])(
    'refuses a redirect to %s',
    async (location) => {
      await forbidden(guard.guardRedirect('https://public.example/', location));
    },
  );

  it('refuses a Location that does not parse as UPSTREAM_ERROR', async () => {
    const error = await rejection(guard.guardRedirect('https://public.example/', 'http://[::1'));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.extensions.slug).toBe('invalid-redirect');
  });
});

/** Calls the guard's lookup like Node does and returns what the callback got. */
function callLookup(
  lookup: ReturnType<typeof createSsrfGuard>['lookup'],
  host: string,
  options: { all?: boolean; family?: number },
): Promise<{ error: Error | null; address: unknown; family: number | undefined }> {
  return new Promise((resolve) => lookup(host, options, (error, address, family) => resolve({ error, address, family })));
}

describe('lookup (Node `lookup` option)', () => {
  it('yields all vetted addresses with all: true and the first otherwise', async () => {
    const { lookup } = createSsrfGuard({ resolve: dns });
    expect(await callLookup(lookup, 'public.example', { all: true })).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
      family: undefined,
    });
    expect(await callLookup(lookup, 'public.example', {})).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await callLookup(lookup, 'public.example', { family: 6 })).toEqual({
      error: null,
      address: '2606:2800:220:1:248:1893:25c8:1946',
      family: 6,
    });
  });

  it('fails with FORBIDDEN when any address is not allowed', async () => {
    const { lookup } = createSsrfGuard({ resolve: dns });
    for (const host of ['internal.example', 'mixed.example', 'mapped.example']) {
      const { error } = await callLookup(lookup, host, { all: true });
      expect(error).toBeInstanceOf(SvcError);
      expect((error as SvcError).code).toBe('FORBIDDEN');
      expect(error!.message).toMatch(new RegExp(`^Refusing to connect to ${host}: ${host} resolves to`));
    }
  });

  it('passes resolver errors through and reports ENOTFOUND when no address has the wanted family', async () => {
    const { lookup } = createSsrfGuard({ resolve: dns });
    expect((await callLookup(lookup, 'nowhere.example', {})).error).toMatchObject({ code: 'ENOTFOUND' });
    expect((await callLookup(lookup, 'internal.example', { family: 6 })).error).toMatchObject({ code: 'FORBIDDEN' });
    const guardWithAllow = createSsrfGuard({ allow: ['internal.example'], resolve: dns });
    expect((await callLookup(guardWithAllow.lookup, 'internal.example', { family: 6 })).error).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('accepts the legacy (hostname, family, callback) and (hostname, callback) forms', async () => {
    const { lookup } = createSsrfGuard({ resolve: dns });
    const legacy = lookup as unknown as (host: string, ...rest: unknown[]) => void;
    const viaFamily = await new Promise((resolve) => legacy('public.example', 6, (_e: unknown, address: unknown) => resolve(address)));
    expect(viaFamily).toBe('2606:2800:220:1:248:1893:25c8:1946');
    const bare = await new Promise((resolve) => legacy('public.example', (_e: unknown, address: unknown) => resolve(address)));
    expect(bare).toBe('93.184.216.34');
  });
});

describe('with a real HTTP client and server', () => {
  async function listen(): Promise<{ server: Server; port: number; hits: string[] }> {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('fixture');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port, hits };
  }

  function fetchWith(url: string, lookup: ReturnType<typeof createSsrfGuard>['lookup']): Promise<string> {
    return new Promise((resolve, reject) => {
      get(url, { lookup, family: 4, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });
  }

  it('cannot be rebound between the check and the connection: lookup re-checks at connect time', async () => {
    const { server, port, hits } = await listen();
    try {
      let answers = 0;
      // First answer public (what checkUrl sees), then loopback (what a rebinding server answers next).
      const rebinding: Resolver = async () => [{ address: answers++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
      const guard = createSsrfGuard({ resolve: rebinding });
      const { url } = await guard.checkUrl(`http://rebind.example:${port}/secret`);
      const error = await fetchWith(url.href, guard.lookup).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SvcError);
      expect((error as SvcError).message).toBe(
        'Refusing to connect to rebind.example: rebind.example resolves to 127.0.0.1 (loopback), which is not allowed',
      );
      expect(hits).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('connects to an allow-listed fixture host through the vetted address', async () => {
    const { server, port, hits } = await listen();
    try {
      const guard = createSsrfGuard({ allow: ['fixtures.test'], resolve: dns });
      const { url } = await guard.checkUrl(`http://fixtures.test:${port}/page`);
      expect(await fetchWith(url.href, guard.lookup)).toBe('fixture');
      expect(hits).toEqual(['/page']);
    } finally {
      server.close();
    }
  });

  it('uses the system resolver by default: localhost is loopback, refused unless allow-listed', async () => {
    const message = await forbidden(createSsrfGuard().checkUrl('http://localhost:9/'));
    expect(message).toMatch(/^Refusing to fetch http:\/\/localhost:9\/: localhost resolves to (127\.\d+\.\d+\.\d+|::1) \(loopback\), which is not allowed$/);

    const { server, port, hits } = await listen();
    try {
      const closed = createSsrfGuard();
      await expect(fetchWith(`http://localhost:${port}/`, closed.lookup)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      const open = createSsrfGuard({ allow: ['localhost'] });
      const { addresses } = await open.checkUrl(`http://localhost:${port}/`);
      expect(addresses.length).toBeGreaterThan(0);
      expect(await fetchWith(`http://localhost:${port}/ok`, open.lookup)).toBe('fixture');
      expect(hits).toEqual(['/ok']);
    } finally {
      server.close();
    }
  });
});
