import { decodeBody, parseContentType } from './charset.js';
import { Agent as HttpAgent, STATUS_CODES } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import got from 'got';
import { SvcError, type SsrfGuard } from '@svc/kit';
import { ROBOTS_MAX_BYTES, SVC_USER_AGENT, productToken, robotsPolicyFromFetch, type RobotsFetchResult } from '../domain/robots.js';
import type { HostLimiter } from '../domain/host-politeness.js';
import { type Answer, type BodyPlan, exchange, firstHeader, upstream } from './exchange.js';
import { backoffDelay, parseRetryAfter, RETRY_ERROR_CODES, RETRY_STATUSES } from './retry-policy.js';
import { detectBlock, type BlockVerdict } from './block-page.js';
import { createRobotsCache, type RobotsCacheEntry } from './robots-cache.js';

/**
 * The crawler's page fetcher: one function from a URL to a decoded HTML (or plain text) page,
 * with the SSRF guard, robots.txt and per-host politeness applied to every request it makes.
 *
 * Decisions:
 * - HTTP is got (v16) in stream mode, one attempt per call, with `dnsLookup` and per-fetcher
 *   keep-alive agents given `guard.lookup`: every connection (first request, redirect hops,
 *   retries, robots.txt) resolves through the guard at connect time, so DNS rebinding between
 *   the check and the connect cannot reach a private address. Agents are per fetcher, not
 *   Node's global ones, so a socket opened under one guard is never reused under another;
 *   `close()` drops them.
 * - Every URL is checked with `guard.checkUrl` before it is requested (IP-literal hosts never
 *   reach `lookup`), redirects are followed here, not by got (`followRedirect: false`), each
 *   hop through `guard.guardRedirect` (a redirect to a private address is the guard's
 *   FORBIDDEN error naming the target) and robots.txt of the hop's origin. Up to
 *   `maxRedirects` hops (default 5) are followed; one more is UPSTREAM_ERROR `too-many-redirects`
 *   naming the chain, and a hop back to a URL already in the chain is `redirect-loop` at once.
 *   `https:` to `http:` hops are followed (browsers do; the guard judges the address either way).
 *   Only 301/302/303/307/308 with a Location are redirects; other 3xx answers are failures.
 * - Retries are done here, not with got's `retry` option: got's promise API would buffer the
 *   body (no cut-off at `maxBytes`, no truncated robots.txt) and its stream API needs rewiring
 *   on every retry. Retried: 408, 425, 429, 500, 502, 503, 504 and network errors (timeouts,
 *   resets, refused connections, DNS hiccups), `retries` times (default 2, so 3 attempts).
 *   Delays double from `backoffMs` (default 1 s: 1 s, 2 s, 4 s, ... at most 30 s). A
 *   `Retry-After` (seconds or HTTP date) replaces the backoff; one over `maxRetryAfterMs`
 *   (default 30 s) is not waited for (the server said it will not be ready) and the failure
 *   carries it as `retryAfter` (seconds) for the caller to reschedule. The guard's and this
 *   module's own refusals are never retried.
 * - Each HTTP request (attempt, hop, robots.txt) runs in `limiter.run(url.host, ...)`, the body
 *   included, so per-host concurrency and spacing count what the server sees. Backoff waits
 *   happen outside the limiter, so a waiting retry does not hold a slot.
 * - Timeouts (got): `timeoutMs` (default 15 s) for a whole request, body included; connecting
 *   (and TLS) at most 10 s of it. A timed-out attempt counts as a network error (retried).
 * - Size: `maxBytes` (default 5 MiB) of decompressed body. A Content-Length above it is refused
 *   before reading; otherwise the download is cut the moment it passes the limit (so gzip/br
 *   bombs stop there too): UPSTREAM_ERROR `page-too-large` naming the limit.
 * - Compression: got sends `accept-encoding: gzip, deflate, br` (and zstd where Node has it) and
 *   decompresses.
 * - Only `text/html`, `application/xhtml+xml` and `text/plain` are accepted (checked from the
 *   header before the body is read); anything else, or no Content-Type at all, is UPSTREAM_ERROR
 *   `unsupported-content-type` naming the type. `contentType` in the result is the bare media
 *   type in lower case (`text/html`), `charset` the encoding the body was decoded with.
 * - Charset (WHATWG order, simplified): a byte order mark, else the Content-Type `charset`, else
 *   (HTML only) a `<meta charset>` or `<meta http-equiv=content-type content="...charset=...">`
 *   in the first 1024 bytes (comments skipped), else UTF-8. Labels go to `TextDecoder`
 *   (`iso-8859-1` decodes as windows-1252, as browsers do); an unknown label falls through to
 *   the next source. A UTF-16 label from a meta tag means UTF-8 (the tag itself was readable
 *   as ASCII). Undecodable bytes become U+FFFD.
 * - robots.txt (`robots: 'respect'`, the default): fetched once per origin and cached
 *   (robots-cache.ts: 1 h, failures 1 min), through the same guard, limiter, timeouts and
 *   retries, following up to 5 redirects, reading at most ROBOTS_MAX_BYTES; the outcome is
 *   judged by `robotsPolicyFromFetch` (4xx: allow all; 429/5xx/unreachable: disallow all), except
 *   that the guard refusing the robots.txt request (or a redirect of it) fails the page with the
 *   guard's error rather than posing as an unreachable robots.txt. A refused URL is FORBIDDEN `robots-disallowed`. Its crawl-delay is handed to
 *   `limiter.setDelay(host, ms)` each time the policy is (re)loaded (none resets the host to
 *   the limiter's default). `robots: 'ignore'` skips all of it.
 * - Headers: `user-agent` (default SVC_USER_AGENT) and `accept: text/html,application/xhtml+xml;q=0.9,*\/*;q=0.1`
 *   on every page request; robots.txt asks for `text/plain,*\/*;q=0.1`.
 * - Block pages (block-page.ts): every 2xx page, and the first 64 KiB of every 4xx/5xx answer,
 *   is judged by the block-page rules. A block page is UPSTREAM_ERROR `blocked-page` with
 *   `details.block` = {kind, rule, reason} and is never returned as content. The host is then
 *   paused in the limiter: for the answer's Retry-After when it has one (at most
 *   `maxBlockPauseMs`, default 1 h), else for `blockBackoffMs` (default 5 s) doubling with each
 *   block in a row from that host (at most 5 min); a page of the site's own resets the doubling.
 *   `pausedFor(url)` tells a caller how long the host is paused, so a long crawl can leave the
 *   rest of that site for its next run rather than wait.
 * - Errors are SvcError: BAD_USER_INPUT (`invalid-url`) for a URL that does not parse,
 *   FORBIDDEN from the guard (`address-not-allowed`) and robots.txt (`robots-disallowed`),
 *   UPSTREAM_ERROR for everything the site did: `upstream-status` (non-2xx final answer; message
 *   names URL and status, `details.status` has it), `upstream-timeout`, `upstream-unreachable`,
 *   `page-too-large`, `unsupported-content-type`, `too-many-redirects`, `redirect-loop`,
 *   `invalid-redirect`. URLs in messages never carry credentials (the guard strips them).
 */

export interface PageFetcherOptions {
  guard: SsrfGuard;
  /** Per-host concurrency and delay; robots.txt crawl-delay is fed into it. */
  limiter?: HostLimiter;
  /** Default SVC_USER_AGENT. Its product token selects the robots.txt groups. */
  userAgent?: string;
  /** Whole-request timeout in milliseconds; default 15,000. */
  timeoutMs?: number;
  /** Retries after the first attempt; default 2. */
  retries?: number;
  /** First backoff delay in milliseconds, doubling per retry (max 30 s); default 1,000. */
  backoffMs?: number;
  /** Longest Retry-After waited for, in milliseconds; default 30,000. Longer ones end the retries. */
  maxRetryAfterMs?: number;
  /** Largest body accepted, decompressed; default 5 MiB. */
  maxBytes?: number;
  /** Redirects followed; default 5. */
  maxRedirects?: number;
  /** Whether robots.txt is consulted; default 'respect'. */
  robots?: 'respect' | 'ignore';
  /** How long a robots.txt policy is cached, in milliseconds; default 1 h. */
  robotsTtlMs?: number;
  /** First pause of a host after a block page without Retry-After, doubling per block in a row; default 5,000. */
  blockBackoffMs?: number;
  /** Longest pause of a host after a block page (a Retry-After beyond it is cut to it); default 1 h. */
  maxBlockPauseMs?: number;
}

export interface FetchedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** The media type without parameters, lower case: `text/html`, `application/xhtml+xml` or `text/plain`. */
  contentType: string;
  /** The encoding the body was decoded with (TextDecoder's name, e.g. `utf-8`, `windows-1252`). */
  charset: string;
  /** The decoded body. */
  html: string;
  /** Body size in bytes after decompression, before decoding. */
  bytes: number;
  /** Every URL that answered with a redirect, in order; `[...redirects, url]` is the whole chain. */
  redirects: string[];
  elapsedMs: number;
}

export interface PageFetcher {
  fetchPage(url: string): Promise<FetchedPage>;
  /** Milliseconds until the host of `url` may be asked again after a block page (0 when it may now). */
  pausedFor(url: string): number;
  /** Closes idle keep-alive connections; the fetcher must not be used afterwards. */
  close(): void;
}

export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_RETRIES = 2;
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_MAX_RETRY_AFTER_MS = 30_000;
export const DEFAULT_BLOCK_BACKOFF_MS = 5_000;
export const DEFAULT_MAX_BLOCK_PAUSE_MS = 3_600_000;
const MAX_BLOCK_BACKOFF_MS = 300_000;
/** Bytes of a 4xx/5xx body read for the block-page rules. */
const ERROR_BODY_BYTES = 64 * 1024;
export const PAGE_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1';
const ROBOTS_ACCEPT = 'text/plain,*/*;q=0.1';
const ROBOTS_MAX_REDIRECTS = 5;
const CONNECT_TIMEOUT_MS = 10_000;

const ACCEPTED_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain']);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
function attemptsNote(attempts: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts)` : '';
}

/** A numeric option, checked: finite, at least `min`, an integer when asked. */
function setting(name: string, value: number, min: number, integer = false): number {
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new SvcError('BAD_USER_INPUT', `${name} must be ${integer ? 'an integer' : 'a finite number'} of at least ${min}; got ${value}`);
  }
  return value;
}

export function createPageFetcher(options: PageFetcherOptions): PageFetcher {
  const { guard, limiter } = options;
  const userAgent = options.userAgent ?? SVC_USER_AGENT;
  const agentName = productToken(userAgent) || userAgent;
  const timeoutMs = setting('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1);
  const retries = setting('retries', options.retries ?? DEFAULT_RETRIES, 0, true);
  const backoffMs = setting('backoffMs', options.backoffMs ?? 1000, 0);
  const maxRetryAfterMs = setting('maxRetryAfterMs', options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS, 0);
  const maxBytes = setting('maxBytes', options.maxBytes ?? DEFAULT_MAX_BYTES, 1, true);
  const maxRedirects = setting('maxRedirects', options.maxRedirects ?? DEFAULT_MAX_REDIRECTS, 0, true);
  const respectRobots = (options.robots ?? 'respect') === 'respect';
  const blockBackoffMs = setting('blockBackoffMs', options.blockBackoffMs ?? DEFAULT_BLOCK_BACKOFF_MS, 0);
  const maxBlockPauseMs = setting('maxBlockPauseMs', options.maxBlockPauseMs ?? DEFAULT_MAX_BLOCK_PAUSE_MS, 0);
  /** Blocks in a row per host (a page of the site's own deletes the entry). */
  const blockStreaks = new Map<string, number>();

  const agents = {
    http: new HttpAgent({ keepAlive: true, lookup: guard.lookup }),
    https: new HttpsAgent({ keepAlive: true, lookup: guard.lookup }),
  };
  const client = got.extend({
    agent: agents,
    dnsLookup: guard.lookup,
    followRedirect: false,
    throwHttpErrors: false,
    retry: { limit: 0 },
    decompress: true,
    http2: false,
    timeout: {
      request: timeoutMs,
      connect: Math.min(timeoutMs, CONNECT_TIMEOUT_MS),
      secureConnect: Math.min(timeoutMs, CONNECT_TIMEOUT_MS),
    },
    headers: { 'user-agent': userAgent },
  });

  function politely<T>(host: string, task: () => Promise<T>): Promise<T> {
    return limiter ? limiter.run(host, task) : task();
  }

  /** The error a got failure stands for: the guard's own refusal, or UPSTREAM_ERROR after retries. */
  function networkFailure(url: URL, error: unknown, attempts: number): SvcError {
    if (error instanceof SvcError) return error;
    const cause = (error as { cause?: unknown } | undefined)?.cause;
    if (cause instanceof SvcError) return cause;
    const { code, name, message } = (error ?? {}) as { code?: string; name?: string; message?: string };
    if (name === 'TimeoutError' || code === 'ETIMEDOUT') {
      return upstream(`Fetching ${url.href} timed out after ${timeoutMs} ms${attemptsNote(attempts)}`, 'upstream-timeout', { url: url.href }, { cause: error });
    }
    return upstream(`Fetching ${url.href} failed: ${code ?? name ?? 'error'}${message ? ` (${message})` : ''}${attemptsNote(attempts)}`, 'upstream-unreachable', { url: url.href }, { cause: error });
  }

  /** GET with retries and backoff; returns the last answer (any status) or throws a SvcError. */
  async function send(url: URL, plan: BodyPlan): Promise<Answer> {
    for (let attempt = 1; ; attempt++) {
      let answer: Omit<Answer, 'attempts'>;
      try {
        answer = await politely(url.host, () => exchange(client, url, plan));
      } catch (error) {
        const failure = networkFailure(url, error, attempt);
        const retryable = !(error instanceof SvcError) && !((error as { cause?: unknown }).cause instanceof SvcError)
          && RETRY_ERROR_CODES.has((error as { code?: string }).code ?? '');
        if (!retryable || attempt > retries) throw failure;
        await sleep(backoffDelay(backoffMs, attempt));
        continue;
      }
      if (!RETRY_STATUSES.has(answer.status) || attempt > retries) return { ...answer, attempts: attempt };
      const asked = parseRetryAfter(firstHeader(answer.headers['retry-after']));
      if (asked !== undefined && asked > maxRetryAfterMs) return { ...answer, attempts: attempt };
      await sleep(asked ?? backoffDelay(backoffMs, attempt));
    }
  }

  function statusFailure(answer: Answer): SvcError {
    const { url, status, attempts } = answer;
    const reason = STATUS_CODES[status];
    const asked = parseRetryAfter(firstHeader(answer.headers['retry-after']));
    return upstream(
      `Fetching ${url.href} failed: HTTP ${status}${reason ? ` ${reason}` : ''}${attemptsNote(attempts)}`,
      'upstream-status',
      { url: url.href, status },
      asked !== undefined && RETRY_STATUSES.has(status) ? { retryAfter: Math.ceil(asked / 1000) } : {},
    );
  }

  const robotsPlan: BodyPlan = { accept: ROBOTS_ACCEPT, limit: ROBOTS_MAX_BYTES + 1, truncate: true };
  const pagePlan: BodyPlan = {
    accept: PAGE_ACCEPT,
    limit: maxBytes,
    truncate: false,
    errorLimit: ERROR_BODY_BYTES,
    vet(url, headers) {
      const { type } = parseContentType(firstHeader(headers['content-type']));
      if (ACCEPTED_TYPES.has(type)) return undefined;
      return upstream(
        `${url.href} is ${type ? `of type ${type}` : 'of no declared type'}; only text/html, application/xhtml+xml and text/plain pages are fetched`,
        'unsupported-content-type',
        { url: url.href, contentType: type },
      );
    },
  };

  /** Fetches and judges <origin>/robots.txt; failures are `unreachable`, except the guard's refusals, which are thrown (and not cached). */
  async function loadRobots(origin: string): Promise<RobotsCacheEntry> {
    let result: RobotsFetchResult;
    let reason: string | undefined;
    try {
      let url = (await guard.checkUrl(new URL('/robots.txt', origin))).url;
      let answer = await send(url, robotsPlan);
      for (let hops = 0; REDIRECT_STATUSES.has(answer.status) && hops < ROBOTS_MAX_REDIRECTS; hops++) {
        const location = firstHeader(answer.headers.location);
        if (!location) break;
        url = await guard.guardRedirect(url, location);
        answer = await send(url, robotsPlan);
      }
      result = { status: answer.status, body: answer.body.toString('utf8') };
      if (answer.status >= 300) reason = `HTTP ${answer.status}`;
    } catch (error) {
      // The guard refusing robots.txt (its address, or a redirect to a private one) is reported as
      // such, not as a robots.txt that could not be fetched; the page is not fetched either way.
      if (error instanceof SvcError && error.code === 'FORBIDDEN') throw error;
      result = { unreachable: true, error };
      reason = error instanceof Error ? error.message : String(error);
    }
    const policy = robotsPolicyFromFetch(result, userAgent);
    limiter?.setDelay(new URL(origin).host, policy.crawlDelayMs() ?? 0);
    return { policy, ...(reason ? { reason } : {}) };
  }

  const robotsCache = createRobotsCache({ load: loadRobots, ...(options.robotsTtlMs !== undefined ? { ttlMs: options.robotsTtlMs } : {}) });

  async function enforceRobots(url: URL): Promise<void> {
    if (!respectRobots) return;
    const { policy, reason } = await robotsCache.get(url.origin);
    if (policy.isAllowed(url.href)) return;
    const path = url.pathname + url.search;
    const message = policy.source === 'unreachable'
      ? `robots.txt of ${url.origin} could not be fetched (${reason ?? 'unreachable'}), so it disallows ${path} for ${agentName} until it can be`
      : `robots.txt of ${url.origin} disallows ${path} for ${agentName}`;
    throw new SvcError('FORBIDDEN', message, {
      slug: 'robots-disallowed',
      details: { url: url.href, origin: url.origin, robots: policy.source },
    });
  }

  /** The page's block verdict as an error, with the host paused (see the module comment). */
  function blocked(answer: Answer, verdict: BlockVerdict): SvcError {
    const host = answer.url.host.toLowerCase();
    const streak = (blockStreaks.get(host) ?? 0) + 1;
    if (blockStreaks.size > 10_000) blockStreaks.clear();
    blockStreaks.set(host, streak);
    const asked = parseRetryAfter(firstHeader(answer.headers['retry-after']));
    const pauseMs = Math.min(asked ?? Math.min(blockBackoffMs * 2 ** (streak - 1), MAX_BLOCK_BACKOFF_MS), maxBlockPauseMs);
    limiter?.pause(host, pauseMs);
    return upstream(
      `${answer.url.href} answered a block page instead of its content (${verdict.kind}: ${verdict.reason})`,
      'blocked-page',
      { url: answer.url.href, status: answer.status, block: verdict, pausedMs: pauseMs },
      asked !== undefined ? { retryAfter: Math.ceil(asked / 1000) } : {},
    );
  }

  async function fetchPage(input: string): Promise<FetchedPage> {
    const started = performance.now();
    let url = (await guard.checkUrl(input)).url;
    url.hash = '';
    const start = url.href;
    const redirects: string[] = [];
    for (;;) {
      await enforceRobots(url);
      const answer = await send(url, pagePlan);
      if (REDIRECT_STATUSES.has(answer.status)) {
        const location = firstHeader(answer.headers.location);
        if (!location) throw statusFailure(answer);
        redirects.push(url.href);
        const next = await guard.guardRedirect(url, location);
        next.hash = '';
        const chain = [...redirects, next.href].join(' → ');
        if (redirects.includes(next.href)) {
          throw upstream(`Redirect loop fetching ${start}: ${chain}`, 'redirect-loop', { url: start, redirects: [...redirects, next.href] });
        }
        if (redirects.length > maxRedirects) {
          throw upstream(`Too many redirects (more than ${maxRedirects}) fetching ${start}: ${chain}`, 'too-many-redirects', {
            url: start,
            redirects: [...redirects, next.href],
          });
        }
        url = next;
        continue;
      }
      const { type, charset } = parseContentType(firstHeader(answer.headers['content-type']));
      const decoded = decodeBody(answer.body, type, charset);
      const verdict = detectBlock({ url: url.href, status: answer.status, headers: answer.headers, html: decoded.text });
      // A 5xx is a block only when it is a challenge; otherwise it stays an ordinary failure.
      if (verdict && (answer.status < 500 || verdict.kind === 'challenge' || verdict.kind === 'captcha')) throw blocked(answer, verdict);
      if (answer.status < 200 || answer.status >= 300) throw statusFailure(answer);
      blockStreaks.delete(url.host.toLowerCase());
      return {
        url: url.href,
        status: answer.status,
        contentType: type,
        charset: decoded.charset,
        html: decoded.text,
        bytes: answer.body.length,
        redirects,
        elapsedMs: Math.round(performance.now() - started),
      };
    }
  }

  return {
    fetchPage,
    pausedFor: (url) => {
      try {
        return limiter?.pausedFor(new URL(url).host) ?? 0;
      } catch {
        return 0;
      }
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
      robotsCache.clear();
    },
  };
}
