import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { UpstreamError } from '../domain/openai-types.js';
import { MAX_SSE_EVENT_CHARS, type SseEvent } from '../domain/sse.js';
import { errorKindOf, joinUrl, MAX_ANSWER_BYTES, MAX_ERROR_BODY_BYTES, parseRetryAfter, postJson, postSse, readAtMost } from './upstream-http.js';

describe('upstream HTTP helpers', () => {
  it('appends a path to the base URL\'s path, keeping its query string', () => {
    expect(joinUrl('https://api.openai.com/v1/', '/embeddings')).toBe('https://api.openai.com/v1/embeddings');
    expect(joinUrl('https://x.openai.azure.com/openai/deployments/gpt-4o?api-version=2024-06-01', '/chat/completions')).toBe('https://x.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-06-01');
  });

  it('parses Retry-After as seconds, HTTP date or retry-after-ms', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }), now)).toBe(30000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });

  it('keeps only the upstream error\'s identifiers, never its message (it may quote the prompt)', () => {
    expect(errorKindOf('{"error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"Your prompt: secret plans"}}')).toBe('invalid_request_error/context_length_exceeded');
    expect(errorKindOf('{"type":"error","error":{"type":"overloaded_error","message":"b"}}')).toBe('overloaded_error');
    expect(errorKindOf('{"error":"echo: secret plans"}')).toBeUndefined();
    expect(errorKindOf('{"error":{"type":"has spaces: secret plans"}}')).toBeUndefined();
    expect(errorKindOf('plain secret plans')).toBeUndefined();
  });
});

describe('upstream answer size', () => {
  let server: Server;
  let base: string;
  /** Bytes each chunked answer got to write before its connection was closed, by path. */
  const written = new Map<string, number>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      const path = req.url ?? '/';
      if (path === '/small') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      // Declares more than any answer may be; sends nothing of it.
      if (path === '/declared-huge') return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_ANSWER_BYTES + 1) }).flushHeaders();
      // Chunked and endless (until the client goes): counts what it could write.
      const status = path === '/error-endless' ? 500 : 200;
      if (path === '/sse-endless') res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: {"n":1}\n\ndata: ');
      else res.writeHead(status, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      let sent = 0;
      // The stream ends after 6 events' limits (a reader without the limit would get there).
      const end = path === '/sse-endless' ? 6 * MAX_SSE_EVENT_CHARS : Infinity;
      const pump = () => {
        while (!res.destroyed && sent < end && res.write(chunk)) sent += chunk.length;
        if (sent >= end) res.end();
        written.set(path, sent);
      };
      res.on('drain', pump);
      res.on('close', () => written.set(path, sent));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads a body within the limit, and stops reading (closing the connection) once a chunked one passes it', async () => {
    expect(await readAtMost(await request(`${base}/small`), 64)).toBe('{"ok":true}');
    expect(await readAtMost(await request(`${base}/endless`), 100_000)).toBeUndefined();
    // The server stopped writing soon after: its connection was closed, not drained to the end.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written.get('/endless')).toBeLessThan(8 * 1024 * 1024);
  });

  it('refuses an answer declaring more than the limit without reading it, as a retryable upstream failure', async () => {
    const failure = await postJson({ url: `${base}/declared-huge`, headers: {}, body: {}, timeoutMs: 5000, signal: new AbortController().signal, label: 'chat completion' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ retryable: true, message: `chat completion: upstream answer larger than ${MAX_ANSWER_BYTES} bytes, not read` });
  });

  it('stops a stream whose event never ends at its limit, after yielding the events before it, as a retryable upstream failure', async () => {
    const events: SseEvent[] = [];
    const failure = await (async () => {
      for await (const event of postSse({ url: `${base}/sse-endless`, headers: {}, body: {}, timeoutMs: 5000, signal: new AbortController().signal, label: 'chat stream' })) events.push(event);
    })().catch((error: unknown) => error);
    expect(events).toEqual([{ data: '{"n":1}' }]);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure).toMatchObject({ retryable: true, message: `chat stream failed: an event longer than ${MAX_SSE_EVENT_CHARS} characters, not read further` });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written.get('/sse-endless')).toBeLessThan(4 * MAX_SSE_EVENT_CHARS);
  });

  it('reads an error body only up to its limit', async () => {
    const failure = await postJson({ url: `${base}/error-endless`, headers: {}, body: {}, timeoutMs: 5000, signal: new AbortController().signal, label: 'chat completion' }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 500, message: `chat completion: HTTP 500, over ${MAX_ERROR_BODY_BYTES} bytes of error body not shown` });
  });
});
