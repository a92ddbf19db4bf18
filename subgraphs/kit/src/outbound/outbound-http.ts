import { Agent, fetch, type Response } from 'undici';
import { SvcError } from '../errors.js';
import { createSsrfGuard, type SsrfGuard, type SsrfGuardOptions } from './ssrf-guard.js';

/**
 * HTTP calls to URLs a user or editor chose (form webhooks, budget alerts, reviewer
 * webhooks): the SSRF guard (ssrf-guard.ts) applied when the URL is set and when it is called.
 *
 * Decisions:
 * - `refusal(url)` is for the moment a URL is stored: the reason it may not be called (not
 *   http(s), or it is or resolves to an address that is not public and not allow-listed), or
 *   undefined. A name that does not resolve yet is accepted: DNS may be set up later, and the
 *   guard judges it again on every call.
 * - `fetch` checks the URL, connects through an undici Agent whose `lookup` is the guard's
 *   (resolved again and vetted at connect time, so DNS rebinding after the check does not
 *   reach a private address), and follows at most `maxRedirects` redirects (default 3) itself,
 *   each target checked like the first URL. 307/308 repeat the method and body; 301/302/303
 *   turn into a GET without a body, as browsers do. More redirects are UPSTREAM_ERROR
 *   `too-many-redirects`.
 * - A refusal is the guard's FORBIDDEN `address-not-allowed` SvcError (also when it happens
 *   at connect time, where undici would wrap it in "fetch failed").
 * - Bodies are strings so that a 307/308 can send them again.
 */
export interface OutboundHttpOptions extends SsrfGuardOptions {
  /** Redirects followed; default 3. */
  maxRedirects?: number;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface OutboundHttp {
  /** Why `url` may not be stored as a call target, or undefined when it may. */
  refusal(url: string): Promise<string | undefined>;
  /** A guarded request; the answer is undici's Response (redirects already followed). */
  fetch(url: string, request?: OutboundRequest): Promise<Response>;
  readonly guard: SsrfGuard;
  /** Closes the pooled connections. */
  close(): Promise<void>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The guard's own refusal when undici wrapped it ("fetch failed", cause: the SvcError). */
function unwrapped(error: unknown): unknown {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof SvcError ? cause : error;
}

export function createOutboundHttp(options: OutboundHttpOptions = {}): OutboundHttp {
  const guard = createSsrfGuard(options);
  const maxRedirects = options.maxRedirects ?? 3;
  const dispatcher = new Agent({ connect: { lookup: guard.lookup } });

  async function refusal(url: string): Promise<string | undefined> {
    try {
      await guard.checkUrl(url);
      return undefined;
    } catch (error) {
      if (error instanceof SvcError && (error.code === 'FORBIDDEN' || error.code === 'BAD_USER_INPUT')) return error.message;
      if (error instanceof SvcError && error.extensions.slug === 'host-not-resolved') return undefined;
      throw error;
    }
  }

  async function guardedFetch(target: string, request: OutboundRequest = {}): Promise<Response> {
    let url = (await guard.checkUrl(target)).url;
    let { method = 'GET', body, headers = {} } = request;
    for (let hop = 0; ; hop++) {
      let response: Response;
      try {
        response = await fetch(url, { method, headers, body, signal: request.signal, redirect: 'manual', dispatcher });
      } catch (error) {
        throw unwrapped(error);
      }
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel();
      if (hop >= maxRedirects) {
        throw new SvcError('UPSTREAM_ERROR', `${target} redirected more than ${maxRedirects} times`, { slug: 'too-many-redirects' });
      }
      url = await guard.guardRedirect(url, location);
      if (response.status <= 303 && method !== 'GET' && method !== 'HEAD') {
        method = 'GET';
        body = undefined;
        headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-type'));
      }
    }
  }

  return { refusal, fetch: guardedFetch, guard, close: () => dispatcher.close() };
}
