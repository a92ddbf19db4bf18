import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Route } from './server.js';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.png': 'image/png',
  '.map': 'application/json',
};

/** Finds a file inside an installed package, even one its `exports` map does not list. */
function resolveFile(require: NodeJS.Require, specifier: string): string {
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
  for (const dir of require.resolve.paths(name) ?? []) {
    const candidate = join(dir, specifier);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`Cannot find ${specifier} in node_modules`);
}

/**
 * Serves files shipped inside npm packages (Swagger UI, GraphiQL) so the pages work offline.
 * `files` maps a URL path to a module specifier resolved from `from` (an import.meta.url).
 */
export function packageFileRoutes(from: string, files: Record<string, string>): Route[] {
  const require = createRequire(from);
  return Object.entries(files).map(([path, specifier]) => {
    const file = resolveFile(require, specifier);
    let body: Promise<Buffer> | undefined;
    return {
      method: 'GET',
      path,
      handle: async (_req, res) => {
        body ??= readFile(file);
        const data = await body;
        res.setHeader('content-type', TYPES[extname(file)] ?? 'application/octet-stream');
        res.setHeader('cache-control', 'public, max-age=86400');
        res.setHeader('content-length', data.length);
        res.end(data);
      },
    };
  });
}

export function htmlRoute(path: string, html: string): Route {
  return {
    method: 'GET',
    path,
    handle: (_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.setHeader('content-security-policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'");
      res.end(html);
    },
  };
}
