import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SvcError } from '../errors.js';
import type { InProcessGraphql } from '../http/apollo-handler.js';
import { createRouterClient, ROUTER_FAILURE, resultOfAnswer, type RouterClient } from './router-client.js';

const OPERATIONS = new Map([['FindThing', 'query FindThing($id: ID!) { thing(id: $id) { id } }']]);

interface Seen {
  /** The client's port: the same one for calls over one kept-alive connection. */
  port: number;
  headers: IncomingHttpHeaders;
  body: { query: string; operationName: string; variables: Record<string, unknown> };
}

/** A stand-in router on port 0: records each request and answers with `answer`. */
let answer: { status?: number; contentType?: string; body: string; delayMs?: number } = { body: '{}' };
const seen: Seen[] = [];
let server: Server;
let url: string;
let client: RouterClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ port: req.socket.remotePort!, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen['body'] });
      setTimeout(() => {
        res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'application/json' });
        res.end(answer.body);
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  client = createRouterClient({ url, operations: OPERATIONS, timeoutMs: 2_000 });
});

afterEach(() => {
  seen.length = 0;
});

afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function failure(call: Promise<unknown>): Promise<SvcError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
}

describe('createRouterClient', () => {
  it('posts the named operation from the loaded texts and returns its data', async () => {
    answer = { body: JSON.stringify({ data: { thing: { id: '7' } } }) };
    await expect(client.execute('FindThing', { id: '7' })).resolves.toEqual({ thing: { id: '7' } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.body).toEqual({ query: OPERATIONS.get('FindThing'), operationName: 'FindThing', variables: { id: '7' } });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
  });

  it('forwards the caller\'s headers, and gives a call without a request id a fresh one', async () => {
    answer = { body: JSON.stringify({ data: { thing: null } }) };
    await client.execute('FindThing', { id: '1' }, { headers: { Authorization: 'Bearer abc', 'x-svc-tenant-id': 'acme', 'x-request-id': 'req-42', 'x-svc-site-key': undefined } });
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer abc', 'x-svc-tenant-id': 'acme', 'x-request-id': 'req-42' });
    expect(seen[0]!.headers['x-svc-site-key']).toBeUndefined();

    await client.execute('FindThing', { id: '1' });
    expect(seen[1]!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps the connection alive between calls', async () => {
    answer = { body: JSON.stringify({ data: { thing: null } }) };
    for (let i = 0; i < 6; i++) await client.execute('FindThing', { id: String(i) });
    // undici may spread back-to-back calls over two sockets, but reuses them.
    expect(new Set(seen.map((s) => s.port)).size).toBeLessThanOrEqual(2);
  });

  it('maps the first GraphQL error to an SvcError with its code and extensions', async () => {
    answer = { body: JSON.stringify({ data: null, errors: [{ message: 'Budget spent', extensions: { code: 'BUDGET_EXCEEDED', retryAfter: 60, slug: 'budget-exceeded' } }, { message: 'second' }] }) };
    const error = await failure(client.execute('FindThing', { id: '1' }));
    expect(error).toMatchObject({ code: 'BUDGET_EXCEEDED', status: 429, message: 'Budget spent' });
    expect(error.extensions).toMatchObject({ retryAfter: 60, slug: 'budget-exceeded' });
  });

  it('maps a 422 validation error, an unknown code and a failed subgraph', async () => {
    answer = { body: JSON.stringify({ errors: [{ message: 'Invalid', extensions: { code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/id', detail: 'bad' }] } }] }) };
    expect(await failure(client.execute('FindThing', { id: '1' }))).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, extensions: { errors: [{ pointer: '/id', detail: 'bad' }] } });

    answer = { status: 400, body: JSON.stringify({ errors: [{ message: 'Cannot query field "x"', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] }) };
    expect(await failure(client.execute('FindThing', { id: '1' }))).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: 'Cannot query field "x"' });

    answer = { body: JSON.stringify({ errors: [{ message: 'connect ECONNREFUSED', extensions: { code: 'DOWNSTREAM_SERVICE_ERROR' } }] }) };
    expect(await failure(client.execute('FindThing', { id: '1' }))).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('returns the raw result, errors included, for callers that map errors themselves', async () => {
    const body = { data: { thing: null }, errors: [{ message: 'Not yours', extensions: { code: 'FORBIDDEN' } }] };
    answer = { body: JSON.stringify(body) };
    await expect(client.raw('FindThing', { id: '1' })).resolves.toEqual(body);
  });

  it('fails UPSTREAM_ERROR on a non-JSON answer, and on an answer without data', async () => {
    answer = { status: 502, contentType: 'text/html', body: '<html>Bad gateway</html>' };
    const error = await failure(client.raw('FindThing', { id: '1' }));
    expect(error).toMatchObject({ code: 'UPSTREAM_ERROR', status: 502, extensions: { slug: ROUTER_FAILURE.invalidAnswer, details: { httpStatus: 502, bodyStart: '<html>Bad gateway</html>' } } });

    answer = { status: 404, body: JSON.stringify({ error: 'No route' }) };
    expect(await failure(client.execute('FindThing', { id: '1' }))).toMatchObject({ code: 'UPSTREAM_ERROR', extensions: { slug: ROUTER_FAILURE.invalidAnswer, details: { httpStatus: 404 } } });
  });

  it('fails UNAVAILABLE when the router does not answer in time', async () => {
    answer = { body: JSON.stringify({ data: {} }), delayMs: 1_000 };
    const error = await failure(client.execute('FindThing', { id: '1' }, { timeoutMs: 100 }));
    expect(error).toMatchObject({ code: 'UNAVAILABLE', status: 503, extensions: { slug: ROUTER_FAILURE.timeout } });
  });

  it('fails UNAVAILABLE, with the network error as the cause, when the router is unreachable', async () => {
    // A port that was free a moment ago: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = createRouterClient({ url: () => `http://127.0.0.1:${port}/graphql`, operations: OPERATIONS });
    try {
      const error = await failure(unreachable.execute('FindThing', { id: '1' }));
      expect(error).toMatchObject({ code: 'UNAVAILABLE', status: 503, message: 'The GraphQL router is unavailable; retry shortly', extensions: { slug: ROUTER_FAILURE.unreachable, retryAfter: 5 } });
      expect(error.originalError?.message).toMatch(/ECONNREFUSED/);
    } finally {
      await unreachable.close();
    }
  });

  it('takes the operations as a promise, and fails the calls when reading them failed', async () => {
    answer = { body: JSON.stringify({ data: { thing: null } }) };
    const later = createRouterClient({ url, operations: Promise.resolve(OPERATIONS) });
    const broken = createRouterClient({ url, operations: Promise.reject(new Error('ENOENT: schema/operations')) });
    try {
      await expect(later.execute('FindThing', { id: '1' })).resolves.toEqual({ thing: null });
      await expect(broken.execute('FindThing', { id: '1' })).rejects.toThrow('ENOENT: schema/operations');
      expect(seen).toHaveLength(1);
    } finally {
      await later.close();
      await broken.close();
    }
  });

  it('refuses an operation no file defines, before any request', async () => {
    await expect(client.execute('Nope')).rejects.toThrow(/Unknown operation Nope/);
    expect(seen).toHaveLength(0);
  });
});

describe('createRouterClient with the router of this process', () => {
  /** A stand-in for the router's in-process endpoint: records each request and answers as `reply` says. */
  function inProcessRouter(reply: (request: Parameters<InProcessGraphql>[0]) => Promise<Awaited<ReturnType<InProcessGraphql>>>) {
    const calls: Parameters<InProcessGraphql>[0][] = [];
    const graphql: InProcessGraphql = (request) => {
      calls.push(request);
      return reply(request);
    };
    // No server listens at this URL: a call that went over HTTP would fail.
    return { calls, client: createRouterClient({ url: 'http://127.0.0.1:9/graphql', operations: OPERATIONS, inProcess: graphql }) };
  }

  it('sends the same request as over HTTP and hands the answer over as the object it is', async () => {
    const result = { data: { thing: { id: '7' } } };
    const { calls, client: local } = inProcessRouter(async () => ({ status: 200, headers: {}, result }));
    try {
      const answer = await local.text('FindThing', { id: '7' }, { headers: { authorization: 'Bearer abc', 'x-request-id': 'req-1', 'x-svc-site-key': undefined } });
      expect(answer).toEqual({ status: 200, result });
      // Not a copy: nothing was serialised on the way.
      expect(resultOfAnswer(answer)).toBe(result);
      expect(calls).toHaveLength(1);
      expect(calls[0]!.method).toBe('POST');
      expect(calls[0]!.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer abc', 'x-request-id': 'req-1' });
      expect(JSON.parse(calls[0]!.body)).toEqual({ query: OPERATIONS.get('FindThing'), operationName: 'FindThing', variables: { id: '7' } });
      await expect(local.execute('FindThing', { id: '7' })).resolves.toEqual({ thing: { id: '7' } });
      expect(calls[1]!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await local.close();
    }
  });

  it('maps GraphQL errors as over HTTP', async () => {
    const { client: local } = inProcessRouter(async () => ({ status: 200, headers: {}, result: { data: null, errors: [{ message: 'Not yours', extensions: { code: 'FORBIDDEN' } }] } }));
    try {
      expect(await failure(local.execute('FindThing', { id: '1' }))).toMatchObject({ code: 'FORBIDDEN', message: 'Not yours' });
    } finally {
      await local.close();
    }
  });

  it('fails UNAVAILABLE when the router does not answer in time, and when the call itself fails', async () => {
    const { client: slow } = inProcessRouter(() => new Promise(() => undefined));
    const { client: broken } = inProcessRouter(async () => {
      throw new Error('gateway not started');
    });
    try {
      expect(await failure(slow.execute('FindThing', { id: '1' }, { timeoutMs: 50 }))).toMatchObject({ code: 'UNAVAILABLE', status: 503, extensions: { slug: ROUTER_FAILURE.timeout } });
      const error = await failure(broken.execute('FindThing', { id: '1' }));
      expect(error).toMatchObject({ code: 'UNAVAILABLE', extensions: { slug: ROUTER_FAILURE.unreachable, retryAfter: 5 } });
      expect(error.originalError?.message).toBe('gateway not started');
    } finally {
      await slow.close();
      await broken.close();
    }
  });
});
