import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { createLogger } from '../logger.js';
import { createHttpServer, KEEP_ALIVE_TIMEOUT_MS, listen, sendJson, type RunningServer } from './server.js';

/**
 * Keep-alive on kit's HTTP server, over a raw socket: a connection left idle for longer than
 * Node's default (5 s, closed at 6 s) still serves the next request, and the answer tells clients
 * how long they may keep it, so a pooled client or a proxy retires it before we close it.
 */

let running: RunningServer;
beforeAll(async () => {
  const log = createLogger({ level: 'silent', destination: new PassThrough() });
  running = await listen(createHttpServer({ name: 'keep-alive', log, routes: [{ method: 'GET', path: '/ping', handle: (_req, res) => sendJson(res, 200, { ok: true }) }] }), 0, '127.0.0.1');
});
afterAll(() => running.close(100));

/** Writes one GET on `socket` and resolves with the raw answer once its body has arrived. */
function get(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n') && text.endsWith('{"ok":true}')) done(undefined);
    };
    const onClose = () => done(new Error(`the server closed the connection; it had sent ${JSON.stringify(text)}`));
    const done = (error: Error | undefined) => {
      socket.off('data', onData).off('close', onClose).off('error', onClose);
      if (error) reject(error);
      else resolve(text);
    };
    socket.on('data', onData).on('close', onClose).on('error', onClose);
    socket.write('GET /ping HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n');
  });
}

describe('kit HTTP server keep-alive', () => {
  it('keeps an idle connection open past Node default and says for how long', async () => {
    const socket = connect(running.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    try {
      const first = await get(socket);
      expect(first).toMatch(/^HTTP\/1\.1 200/);
      expect(first.toLowerCase()).toContain(`keep-alive: timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
      await new Promise((resolve) => setTimeout(resolve, 6_500));
      expect(await get(socket)).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
  }, 20_000);
});
