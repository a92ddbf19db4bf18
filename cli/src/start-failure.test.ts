import { describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { startFailureMessage } from './start-failure.js';

/** A port another process holds is named with the variable that moves it; other failures keep their stack. */

const listen = (server: Server, port: number) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });

describe('the start failure message', () => {
  it('names a port in use and its variable, from a real EADDRINUSE', async () => {
    const holder = createServer();
    await listen(holder, 0);
    const port = (holder.address() as { port: number }).port;
    const second = createServer();
    const error = await listen(second, port).catch((e: unknown) => e);
    holder.close();
    expect((error as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
    const message = startFailureMessage(error, { SVC_INSIGHT_PORT: port, SVC_LLM_PORT: port + 1, DB_PORT: port, LOG_LEVEL: 'info' });
    expect(message).toBe(`svc: cannot listen on 127.0.0.1:${port}: the port is in use (SVC_INSIGHT_PORT). Another svc (a second npm start?) or another program holds it: stop it, or start with SVC_INSIGHT_PORT=<a free port>.`);
    expect(message).not.toMatch(/\n\s+at /);
    expect(startFailureMessage(error, undefined)).toMatch(/the port is in use\. .*: stop it\.$/);
  });

  it('keeps the stack of any other failure', () => {
    const error = new Error('relation "x" does not exist');
    expect(startFailureMessage(error, {})).toMatch(/^svc: failed to start: Error: relation "x" does not exist\n\s+at /);
  });
});
