import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The fixture pages of the crawl subgraph (`subgraphs/crawl/test/fixtures/`). */
export type FixtureVersion =
  | 'v1.html'
  | 'v2-renamed-classes.html'
  | 'v3-wrapper.html'
  | 'v4-reordered.html'
  | 'v5-unrelated.html'
  | 'v6-date-class-reused.html'
  | 'v7-old-classes-in-sidebar.html'
  | 'v8-old-classes-on-topics.html'
  | 'v9-list-gone-old-classes-in-sidebar.html';

const FIXTURES = new URL('../../../../subgraphs/crawl/test/fixtures/', import.meta.url);

/** The text of one fixture page. */
export function fixtureHtml(version: FixtureVersion): string {
  return readFileSync(new URL(version, FIXTURES), 'utf8');
}

/** v1 with one more news item on top of the list (same classes, so no healing is needed). */
export function v1WithNewItem(item: { title: string; href: string; date: string }): string {
  const row = `
      <li class="news-item">
        <h3 class="title"><a href="${item.href}">${item.title}</a></h3>
        <span class="date">${item.date}</span>
        <p class="teaser">Just in.</p>
      </li>`;
  const html = fixtureHtml('v1.html');
  const marker = '<ul class="news-list">';
  if (!html.includes(marker)) throw new Error('v1.html has no <ul class="news-list">');
  return html.replace(marker, marker + row);
}

export interface PageSpec {
  /** A fixture file name, or HTML text. */
  content: FixtureVersion | { html: string };
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer with this status (default 200). */
  status?: number;
  /** More response headers. */
  headers?: Record<string, string>;
}

export interface FixtureRequest {
  path: string;
  at: number;
  userAgent: string | undefined;
}

export interface FixtureSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Absolute URL of a path on this site. */
  url(path: string): string;
  /** Serves `spec` at `path` (exact path, query ignored), replacing what was served there. */
  serve(path: string, spec: PageSpec | FixtureVersion): void;
  /** Sets /robots.txt; null answers 404 (everything allowed). */
  robots(text: string | null): void;
  /** Every request received, in order. */
  requests: FixtureRequest[];
  /** Requests received for one path. */
  hits(path: string): FixtureRequest[];
  /** Requests received but not answered yet (slow pages waiting). */
  inFlight(): number;
  close(): Promise<void>;
}

/**
 * A local web site on 127.0.0.1 (port 0) for crawl tests. Besides the pages registered with
 * `serve`, it always has `/redirect-private` (302 to http://10.0.0.1/), `/slow` (v1 after 2 s),
 * and `/error` (500). Unknown paths answer 404.
 */
export async function startFixtureSite(): Promise<FixtureSite> {
  const pages = new Map<string, PageSpec>();
  let robotsTxt: string | null = null;
  const requests: FixtureRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let pending = 0;

  pages.set('/slow', { content: 'v1.html', delayMs: 2000 });
  pages.set('/error', { content: { html: '<!doctype html><title>Oops</title><p>Internal error</p>' }, status: 500 });

  function answer(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
    res.end(body);
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://fixture.invalid').pathname;
    requests.push({ path, at: Date.now(), userAgent: req.headers['user-agent'] });
    pending++;
    let done = false;
    const settle = () => {
      if (!done) pending--;
      done = true;
    };
    res.once('finish', settle);
    res.once('close', settle);
    if (path === '/robots.txt') {
      if (robotsTxt === null) return answer(res, 404, 'text/plain; charset=utf-8', 'not found');
      return answer(res, 200, 'text/plain; charset=utf-8', robotsTxt);
    }
    if (path === '/redirect-private') {
      res.writeHead(302, { location: 'http://10.0.0.1/', 'content-length': '0' });
      return res.end();
    }
    const spec = pages.get(path);
    if (!spec) return answer(res, 404, 'text/html; charset=utf-8', '<!doctype html><title>Not found</title>');
    const html = typeof spec.content === 'string' ? fixtureHtml(spec.content) : spec.content.html;
    const send = () => answer(res, spec.status ?? 200, 'text/html; charset=utf-8', html, spec.headers);
    if (!spec.delayMs) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) send();
    }, spec.delayMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    url: (path) => new URL(path, origin).href,
    serve(path, spec) {
      pages.set(path, typeof spec === 'string' ? { content: spec } : spec);
    },
    robots(text) {
      robotsTxt = text;
    },
    requests,
    hits: (path) => requests.filter((r) => r.path === path),
    inFlight: () => pending,
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
