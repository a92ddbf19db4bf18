import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './read-body.js';

/** readBody on real sockets: whole bodies in several chunks, the limit (declared or streamed), and a client that leaves. */

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve())));

/** A server whose handler reads the body with `limit`; resolves with what readBody gave or threw. */
function serve(limit: number): Promise<{ url: string; outcome: Promise<{ body?: string; error?: Error; req: IncomingMessage }> }> {
  let settle!: (value: { body?: string; error?: Error; req: IncomingMessage }) => void;
  const outcome = new Promise<{ body?: string; error?: Error; req: IncomingMessage }>((resolve) => (settle = resolve));
  server = createServer((req, res) => {
    readBody(req, limit).then(
      (body) => {
        settle({ body: body.toString('utf8'), req });
        res.end('ok');
      },
      (error: Error) => {
        settle({ error, req });
        if (!res.destroyed) res.end();
      },
    );
  });
  return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`, outcome })));
}

/** Sends `parts` one by one (chunked, a pause between), optionally without ending the request. */
function send(url: string, parts: string[], options: { end?: boolean; headers?: Record<string, string> } = {}) {
  const req = request(url, { method: 'POST', headers: options.headers });
  req.on('error', () => undefined);
  return (async () => {
    for (const part of parts) {
      req.write(part);
      await new Promise((r) => setTimeout(r, 5));
    }
    if (options.end !== false) req.end();
    return req;
  })();
}

describe('readBody', () => {
  it('returns a body sent in several chunks, whole and in order', async () => {
    const { url, outcome } = await serve(1000);
    await send(url, ['{"a":', '"grüße', ' 👋"}']);
    expect((await outcome).body).toBe('{"a":"grüße 👋"}');
  });

  it('refuses a declared length over the limit before reading', async () => {
    const { url, outcome } = await serve(10);
    await send(url, ['x'.repeat(20)], { headers: { 'content-length': '20' } });
    const { error } = await outcome;
    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than the limit of 10 bytes' });
  });

  it('stops a streamed body once it passes the limit, and destroys the request', async () => {
    const { url, outcome } = await serve(10);
    await send(url, ['12345', '67890', 'abcde', 'more'], { end: false });
    const { error, req } = await outcome;
    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(req.destroyed).toBe(true);
  });

  it('rejects when the client goes away before the end of the body', async () => {
    const { url, outcome } = await serve(1000);
    const client = await send(url, ['part'], { end: false });
    client.destroy();
    const { error, body } = await outcome;
    expect(body).toBeUndefined();
    expect(error?.message).toMatch(/aborted|premature close/i);
  });
});
