import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import type { Logger, SsrfGuard } from '@svc/kit';

/**
 * The loopback HTTP proxy headless Chromium is launched behind. Playwright's request
 * interception does not see redirect hops (it routes only a request's first URL), and
 * Chromium resolves names itself (DNS rebinding after a check), so every connection the
 * browser makes goes through this proxy, opened through `guard.lookup` (connect-time check,
 * no DNS rebinding), IP-literal hosts checked with `guard.checkUrl`. Playwright makes
 * Chromium proxy loopback too (`<-loopback>`), so nothing bypasses it.
 */

export interface GuardedProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * An HTTP proxy on 127.0.0.1 for the browser: plain-HTTP requests are forwarded and CONNECT
 * (HTTPS, WebSockets) tunnelled, each connection opened through the SSRF guard.
 */
export async function startGuardedProxy(guard: SsrfGuard, log: Logger): Promise<GuardedProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const server = createServer((req, res) => {
    void (async () => {
      let target: URL;
      try {
        target = (await guard.checkUrl(req.url ?? '')).url;
        if (target.protocol !== 'http:') throw new Error(`only http: is proxied here, not ${target.protocol}`);
      } catch (error) {
        log.debug({ url: req.url, reason: reasonOf(error) }, 'browser request refused by the SSRF guard');
        res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(reasonOf(error));
        return;
      }
      const connectionTokens = new Set(String(req.headers.connection ?? '').toLowerCase().split(',').map((t) => t.trim()));
      const headers: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (!HOP_BY_HOP.has(name) && !connectionTokens.has(name) && value !== undefined) headers[name] = value;
      }
      const upstream = httpRequest(
        { hostname: stripBrackets(target.hostname), port: target.port || 80, path: `${target.pathname}${target.search}`, method: req.method, headers, lookup: guard.lookup, agent: false },
        (answer: IncomingMessage) => {
          const raw: string[] = [];
          for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
            if (!HOP_BY_HOP.has(answer.rawHeaders[i]!.toLowerCase())) raw.push(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
          }
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, raw);
          answer.pipe(res);
        },
      );
      upstream.on('error', (error) => {
        log.debug({ url: target.href, reason: reasonOf(error) }, 'browser request failed');
        if (res.headersSent) res.destroy();
        else res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(reasonOf(error));
      });
      req.pipe(upstream);
    })();
  });

  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    void (async () => {
      const authority = req.url ?? '';
      let target: URL;
      try {
        target = (await guard.checkUrl(`https://${authority}/`)).url;
      } catch (error) {
        log.debug({ authority, reason: reasonOf(error) }, 'browser connection refused by the SSRF guard');
        client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      let connected = false;
      const upstream = netConnect({ host: stripBrackets(target.hostname), port: Number(target.port || 443), lookup: guard.lookup });
      track(upstream);
      upstream.once('connect', () => {
        connected = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', (error) => {
        log.debug({ authority, reason: reasonOf(error) }, 'browser connection failed');
        if (connected) client.destroy();
        else client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      });
      client.on('close', () => upstream.destroy());
    })();
  });
  // WebSockets through a proxy use CONNECT; an Upgrade sent to the proxy itself is not served.
  server.on('upgrade', (_req: IncomingMessage, socket: Socket) => socket.end('HTTP/1.1 501 Not Implemented\r\nContent-Length: 0\r\n\r\n'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
