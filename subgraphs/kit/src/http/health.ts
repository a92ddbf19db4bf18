import type { Logger } from '../logger.js';
import { sendJson, type Route } from './server.js';

export interface HealthOptions {
  /** The name the answers carry (`service`). */
  service: string;
  log: Logger;
  /**
   * Resolves when the service can serve (database reachable, ...), optionally with the state of
   * dependencies it can do without (`{redis: 'down'}`); rejects with the reason it cannot serve.
   * Without it there is no `/ready` route, only `/health`.
   */
  ready?: () => Promise<void | Record<string, string>>;
}

/**
 * `GET /health` (the process is up: 200 `{status: 'ok', service}`) and, with `ready`,
 * `GET /ready` (200 `{status: 'ready', service, dependencies?}`, `status: 'degraded'` when a
 * dependency it can do without is down (its state says `(degraded)`), or 503 `{status:
 * 'unavailable', service, reason}` with Retry-After). The HTTP server leaves both out of its
 * access log.
 */
export function healthRoutes(options: HealthOptions): Route[] {
  const { service, log, ready } = options;
  const routes: Route[] = [{ method: 'GET', path: '/health', handle: (_req, res) => sendJson(res, 200, { status: 'ok', service }) }];
  if (ready) {
    routes.push({
      method: 'GET',
      path: '/ready',
      handle: async (_req, res) => {
        try {
          const dependencies = await ready();
          const degraded = !!dependencies && Object.values(dependencies).some((state) => state.includes('degraded'));
          sendJson(res, 200, { status: degraded ? 'degraded' : 'ready', service, ...(dependencies ? { dependencies } : {}) });
        } catch (error) {
          log.warn({ reason: (error as Error).message }, 'readiness check failed');
          res.setHeader('retry-after', '5');
          sendJson(res, 503, { status: 'unavailable', service, reason: (error as Error).message });
        }
      },
    });
  }
  return routes;
}
