import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import type { Logger, SsrfGuard } from '@svc/kit';
import { startGuardedProxy, type GuardedProxy } from './guarded-proxy.js';

/**
 * Headless Chromium for pages that build their content with JavaScript: playwright-core with
 * Debian's /usr/bin/chromium, never a downloaded browser. The launch is lazy (first use) and
 * the browser shared by calls, each in a fresh context (render-page.ts); it runs behind the
 * guarded proxy, so every connection it makes passes the SSRF guard. A browser that died is
 * relaunched on the next use.
 */

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** Launch flags as in the e2e browser helper: no background traffic of Chromium's own. */
const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface ChromiumPool {
  readonly executablePath: string;
  installed(): boolean;
  /** The shared browser, launched (behind its guarded proxy) on first use. */
  browser(): Promise<Browser>;
  close(): Promise<void>;
}

export function createChromiumPool(options: { executablePath?: string; guard: SsrfGuard; log: Logger }): ChromiumPool {
  const executablePath = options.executablePath ?? DEFAULT_CHROMIUM_PATH;
  let running: Promise<{ browser: Browser; proxy: GuardedProxy }> | undefined;

  async function launch(): Promise<{ browser: Browser; proxy: GuardedProxy }> {
    const proxy = await startGuardedProxy(options.guard, options.log);
    try {
      const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, proxy: { server: proxy.url }, timeout: 30_000 });
      options.log.info({ executablePath, version: browser.version() }, 'headless Chromium started');
      return { browser, proxy };
    } catch (error) {
      await proxy.close();
      throw error;
    }
  }

  return {
    executablePath,
    installed: () => existsSync(executablePath),
    async browser() {
      if (running) {
        const current = await running.catch(() => undefined);
        if (current?.browser.isConnected()) return current.browser;
        if (current) await current.proxy.close();
        running = undefined;
      }
      const attempt = launch();
      running = attempt;
      attempt.catch(() => {
        if (running === attempt) running = undefined;
      });
      return (await attempt).browser;
    },
    async close() {
      const current = await running?.catch(() => undefined);
      running = undefined;
      if (!current) return;
      await current.browser.close().catch(() => undefined);
      await current.proxy.close();
    },
  };
}
