import { SvcError, type Logger, type SsrfGuard } from '@svc/kit';
import { SVC_USER_AGENT } from '../../domain/robots.js';
import type { FetchedPage } from '../../fetch/fetch-page.js';
import type { ChromiumPool } from './browser-pool.js';

/**
 * Renders a page the crawler's fetcher already fetched (SSRF guard and robots.txt applied)
 * in headless Chromium and waits up to 10 s for a selector to be attached to the DOM (hidden
 * elements count). The SSRF guard applies to everything the browser loads:
 * 1. The page itself is handed to the browser from memory (`route.fulfill`), so it is
 *    requested once.
 * 2. Every other request the page makes is intercepted (`context.route` on every URL) and
 *    aborted when `guard.checkUrl` refuses its URL; WebSockets likewise (`routeWebSocket`).
 * 3. What interception cannot see (redirect hops, Chromium's own name resolution) the
 *    guarded proxy the browser runs behind catches (guarded-proxy.ts).
 * Each call has its own browser context: no cookies or storage are carried between calls.
 */

/** How long a rendered page may take to load, and then to show the selector. */
const NAVIGATION_TIMEOUT_MS = 15_000;
const WAIT_TIMEOUT_MS = 10_000;

export interface RenderDeps {
  chromium: ChromiumPool;
  guard: SsrfGuard;
  log: Logger;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withoutHash(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}

/** Loads an already fetched page in Chromium, with every further request guarded, and waits for `selector`. */
export async function renderPage(deps: RenderDeps, first: FetchedPage, selector: string): Promise<{ html: string; finalUrl: string }> {
  const { guard, log } = deps;
  const browser = await deps.chromium.browser();
  const context = await browser.newContext({ userAgent: SVC_USER_AGENT, serviceWorkers: 'block', acceptDownloads: false });
  try {
    let served = false;
    const refused: string[] = [];
    await context.route('**/*', async (route) => {
      const request = route.request();
      const url = request.url();
      try {
        if (!served && request.isNavigationRequest() && withoutHash(url) === first.url) {
          served = true;
          await route.fulfill({ status: 200, headers: { 'content-type': `${first.contentType}; charset=utf-8` }, body: first.html });
          return;
        }
        try {
          await guard.checkUrl(url);
        } catch (error) {
          refused.push(url);
          log.debug({ url, reason: reasonOf(error) }, 'browser request refused by the SSRF guard');
          await route.abort('blockedbyclient');
          return;
        }
        await route.continue();
      } catch (error) {
        // The page or context went away while the request was pending.
        log.debug({ url, reason: reasonOf(error) }, 'browser request not handled');
      }
    });
    await context.routeWebSocket(/.*/, async (ws) => {
      try {
        await guard.checkUrl(ws.url().replace(/^ws(s?):/i, 'http$1:'));
        ws.connectToServer();
      } catch (error) {
        refused.push(ws.url());
        log.debug({ url: ws.url(), reason: reasonOf(error) }, 'browser WebSocket refused by the SSRF guard');
        await ws.close({ code: 1008, reason: 'refused by the SSRF guard' }).catch(() => undefined);
      }
    });
    const page = await context.newPage();
    await page.goto(first.url, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
    try {
      await page.waitForSelector(selector, { state: 'attached', timeout: WAIT_TIMEOUT_MS });
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new SvcError(
          'UPSTREAM_ERROR',
          `waitForSelector ${JSON.stringify(selector)} did not appear on ${page.url()} within ${WAIT_TIMEOUT_MS / 1000} s of loading it in headless Chromium${refused.length ? ` (the SSRF guard refused ${refused.length} request(s) of the page, e.g. ${refused[0]})` : ''}; check the selector, or call without waitForSelector to read the page as served`,
        );
      }
      throw new SvcError('BAD_USER_INPUT', `waitForSelector ${JSON.stringify(selector)} could not be used: ${reasonOf(error).split('\n')[0]}`);
    }
    if (refused.length) log.info({ url: first.url, refused: refused.length }, 'the SSRF guard refused requests of a rendered page');
    return { html: await page.content(), finalUrl: page.url() };
  } finally {
    await context.close().catch(() => undefined);
  }
}
