import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { SvcError } from '../errors.js';
import { checkAddress, createAllowList, normalizeHost, type AllowList } from './address-policy.js';

/**
 * Server-side request forgery guard for every URL the crawler fetches: the seed, each
 * redirect hop, and the connection itself.
 *
 * Decisions:
 * - Only `http:` and `https:` are fetched; `file:`, `ftp:`, `gopher:`, `data:`, ... are refused.
 * - Every address a hostname resolves to must pass `checkAddress` (address-policy.ts), not
 *   just the first: a name answering with one public and one private address is refused as a
 *   whole, because the client could connect to either (and a rebinding server can make it).
 * - The check before fetching is not enough on its own: DNS can answer differently a moment
 *   later (rebinding). `guard.lookup` has the signature of Node's `lookup` option
 *   (`net.connect`, `http.request`, `https.request`, undici's `connect` options, got's
 *   `dnsLookup`), resolves again at connect time, applies the same check and hands the socket
 *   only the vetted addresses, so whatever is connected to is what was checked. HTTP clients
 *   MUST be given it; `checkUrl` is for refusing early with a clear message. Node does not
 *   call `lookup` for IP-literal hosts, which `checkUrl` judges directly.
 * - IP-literal hosts are checked without DNS. The WHATWG URL parser has already turned
 *   decimal, octal, hex and short IPv4 forms (`http://2130706433/`, `http://0x7f.1/`,
 *   `http://127.1/`) into dotted quads and IPv6 into its compressed bracketed form, so a single
 *   `isIP` test catches them all.
 * - Credentials in a URL (`http://user:pass@host/`) are not refused but stripped from the
 *   returned URL and from messages: links found on the web must never make the crawler send
 *   someone's password to a host. (A URL such as `http://public.example@127.0.0.1/` targets
 *   127.0.0.1 after parsing and is judged as such.)
 * - Any port is allowed: the address decides, and fixture sites use ephemeral ports.
 * - Refusals are `SvcError('FORBIDDEN', 'Refusing to fetch <url>: <reason>', { slug: 'address-not-allowed' })`
 *   (at connect time: 'Refusing to connect to <host>: ...'). A URL that does not parse is
 *   BAD_USER_INPUT (`invalid-url`); a name that does not resolve is UPSTREAM_ERROR
 *   (`host-not-resolved`) from `checkUrl`, and the resolver's own error (ENOTFOUND, ...) from
 *   `lookup`, so HTTP clients report it as usual.
 * - Redirect limits, https-to-http downgrades and per-job URL scope are the fetcher's business.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a hostname to every address it has (A and AAAA). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface SsrfGuardOptions {
  /** Allow-list entries (see address-policy.ts: SVC_CRAWL_ALLOW_PRIVATE_HOSTS, SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS), or a prepared allow list. */
  allow?: readonly string[] | AllowList;
  /** Defaults to `dns.promises.lookup(host, { all: true, order: 'verbatim' })` (the system resolver, /etc/hosts included). */
  resolve?: Resolver;
}

export interface CheckedUrl {
  /** The URL to fetch, credentials removed. */
  url: URL;
  /** Every address the host resolved to, all of them allowed. */
  addresses: string[];
}

export interface SsrfGuard {
  /** Refuses URLs the crawler must not fetch; resolves the host and checks every address. */
  checkUrl(url: string | URL): Promise<CheckedUrl>;
  /** Resolves a redirect's Location against the URL that answered and checks the target like `checkUrl`. */
  guardRedirect(from: URL | string, location: string): Promise<URL>;
  /** Node's `lookup` option: resolves at connect time and yields only vetted addresses (or a FORBIDDEN error). */
  readonly lookup: LookupFunction;
}

const defaultResolver: Resolver = (host) => dnsLookup(host, { all: true, order: 'verbatim' });

function withoutCredentials(url: URL): URL {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy;
}

/** A URL for messages: credentials removed when it parses, the text (shortened) otherwise. */
function displayUrl(url: string | URL): string {
  try {
    return withoutCredentials(new URL(String(url))).href;
  } catch {
    const text = String(url);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  }
}

function refused(url: string, reason: string): SvcError {
  return new SvcError('FORBIDDEN', `Refusing to fetch ${url}: ${reason}`, { slug: 'address-not-allowed', details: { url } });
}

function familyOf(options: LookupOptions): 0 | 4 | 6 {
  const family = options.family;
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

export function createSsrfGuard(options: SsrfGuardOptions = {}): SsrfGuard {
  const allow: AllowList = Array.isArray(options.allow) || options.allow === undefined
    ? createAllowList((options.allow as readonly string[] | undefined) ?? [])
    : (options.allow as AllowList);
  const resolve = options.resolve ?? defaultResolver;

  /** The addresses of `host`, deduplicated, with the first refused one (and why) if any. */
  async function vet(host: string): Promise<{ addresses: ResolvedAddress[]; problem?: string }> {
    const literal = normalizeHost(host);
    const family = isIP(literal);
    const answers = family ? [{ address: literal, family }] : await resolve(literal);
    const seen = new Set<string>();
    const addresses = answers.filter((a) => !seen.has(a.address) && seen.add(a.address));
    for (const { address } of addresses) {
      const verdict = checkAddress(host, address, allow);
      if (!verdict.ok) return { addresses, problem: verdict.reason };
    }
    return { addresses };
  }

  async function checkUrl(input: string | URL): Promise<CheckedUrl> {
    let parsed: URL;
    try {
      parsed = new URL(String(input));
    } catch {
      throw new SvcError('BAD_USER_INPUT', `Not a valid URL: ${displayUrl(input)}`, { slug: 'invalid-url' });
    }
    const url = withoutCredentials(parsed);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw refused(url.href, `only http and https URLs are fetched, not ${url.protocol}`);
    }
    if (!url.hostname) throw refused(url.href, 'the URL has no host');

    let result: Awaited<ReturnType<typeof vet>>;
    try {
      result = await vet(url.hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      throw new SvcError('UPSTREAM_ERROR', `Could not resolve ${normalizeHost(url.hostname)}${code ? ` (${code})` : ''}`, {
        slug: 'host-not-resolved',
        cause: error,
      });
    }
    if (result.problem) throw refused(url.href, result.problem);
    if (result.addresses.length === 0) {
      throw new SvcError('UPSTREAM_ERROR', `Could not resolve ${normalizeHost(url.hostname)} (no addresses)`, { slug: 'host-not-resolved' });
    }
    return { url, addresses: result.addresses.map((a) => a.address) };
  }

  async function guardRedirect(from: URL | string, location: string): Promise<URL> {
    let target: URL;
    try {
      target = new URL(location, from);
    } catch {
      throw new SvcError('UPSTREAM_ERROR', `${displayUrl(from)} redirected to an invalid location: ${displayUrl(location)}`, {
        slug: 'invalid-redirect',
      });
    }
    try {
      return (await checkUrl(target)).url;
    } catch (error) {
      if (error instanceof SvcError && error.code === 'FORBIDDEN') {
        throw new SvcError('FORBIDDEN', `${error.message} (redirected from ${displayUrl(from)})`, {
          slug: 'address-not-allowed',
          details: { url: displayUrl(target), redirectedFrom: displayUrl(from) },
        });
      }
      throw error;
    }
  }

  type Callback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

  function lookup(hostname: string, options: LookupOptions | number | Callback, callback?: Callback): void {
    const cb = (typeof options === 'function' ? options : callback) as Callback;
    const opts: LookupOptions = typeof options === 'function' ? {} : typeof options === 'number' ? { family: options } : (options ?? {});
    vet(hostname).then(
      ({ addresses, problem }) => {
        if (problem) {
          const error = new SvcError('FORBIDDEN', `Refusing to connect to ${normalizeHost(hostname)}: ${problem}`, { slug: 'address-not-allowed' });
          cb(error as unknown as NodeJS.ErrnoException, opts.all ? [] : '');
          return;
        }
        const family = familyOf(opts);
        const wanted = family ? addresses.filter((a) => a.family === family) : addresses;
        if (wanted.length === 0) {
          const error: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
            code: 'ENOTFOUND',
            syscall: 'getaddrinfo',
            hostname,
          });
          cb(error, opts.all ? [] : '');
          return;
        }
        if (opts.all) cb(null, wanted.map(({ address, family: f }) => ({ address, family: f })));
        else cb(null, wanted[0]!.address, wanted[0]!.family);
      },
      (error: NodeJS.ErrnoException) => cb(error, opts.all ? [] : ''),
    );
  }

  return { checkUrl, guardRedirect, lookup: lookup as LookupFunction };
}
