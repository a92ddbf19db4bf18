import type { Logger } from '@svc/kit';
import type { LayerResult } from '../domain/purge.js';

/**
 * Purges edge caches by surrogate key: an HTTP `PURGE` with an `xkey` header, which the
 * repo's Varnish VCL (docker/varnish/default.vcl) answers through the xkey vmod.
 */
export function createEdgePurger(urls: readonly string[], log: Logger, timeoutMs = 5000) {
  return {
    urls,
    async purge(keys: readonly string[]): Promise<LayerResult[]> {
      return Promise.all(
        urls.map(async (url) => {
          const started = performance.now();
          try {
            const response = await fetch(url, { method: 'PURGE', headers: { xkey: keys.join(' ') }, signal: AbortSignal.timeout(timeoutMs) });
            const text = (await response.text()).trim().slice(0, 200);
            const ok = response.ok;
            if (!ok) log.warn({ url, status: response.status, bodyBytes: Buffer.byteLength(text) }, 'edge purge refused');
            return { layer: 'edge', target: url, ok, detail: ok ? `HTTP ${response.status}${response.headers.get('x-purged') ? `, ${response.headers.get('x-purged')} object(s) purged` : ''}` : `HTTP ${response.status}: ${text}`, durationMs: Math.round(performance.now() - started) };
          } catch (error) {
            log.warn({ url, err: error }, 'edge purge failed');
            return { layer: 'edge', target: url, ok: false, detail: `unreachable: ${(error as Error).message}`, durationMs: Math.round(performance.now() - started) };
          }
        }),
      );
    },
  };
}

export type EdgePurger = ReturnType<typeof createEdgePurger>;
