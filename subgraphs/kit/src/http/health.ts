import type { Logger } from '../logger.js';
import { sendJson, type Route } from './server.js';

export interface HealthOptions {
  /** The name the answers carry (`service`). */
  service: string;
  log: Logger;
  /**
   * Resolves when the service can serve (database reachable, ...); rejects with the reason.
   * Without it there is no `/ready` route, only `/health`.
   */
  ready?: () => Promise<void>;
}

/**
 * `GET /health` (the process is up: 200 `{status: 'ok', service}`) and, with `ready`,
 * `GET /ready` (200 `{status: 'ready', service}`, or 503 `{status: 'unavailable', service,
 * reason}`). The HTTP server leaves both out of its access log.
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
          await ready();
          sendJson(res, 200, { status: 'ready', service });
        } catch (error) {
          log.warn({ err: error }, 'readiness check failed');
          sendJson(res, 503, { status: 'unavailable', service, reason: (error as Error).message });
        }
      },
    });
  }
  return routes;
}
