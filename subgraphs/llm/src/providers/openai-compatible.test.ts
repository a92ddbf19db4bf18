import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpstreamError, type ChatCompletionChunk, type Provider, type UpstreamChatRequest } from '../domain/openai-types.js';
import { chatBody, createOpenAiCompatibleProvider } from './openai-compatible.js';
import { joinUrl } from './upstream-http.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A stand-in for the upstream: the request's `model` picks the behaviour. */
let server: Server;
let base: string;
let seen: Seen[] = [];

const completion = (model: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1700000000,
  model,
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
});

const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({
  id: 'chatcmpl-s',
  object: 'chat.completion.chunk',
  created: 1700000000,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

const sse = (res: ServerResponse, events: (object | string)[]): void => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(typeof e === 'string' ? e : `data: ${JSON.stringify(e)}\n\n`);
  res.end();
};

function handle(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): void {
  const model = String(body['model']);
  const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(payload));
  };
  if (req.url?.split('?')[0]?.endsWith('/embeddings')) {
    const input = body['input'] as string[];
    // Deliberately out of order.
    json(200, { object: 'list', data: input.map((_, i) => ({ object: 'embedding', index: i, embedding: [i, i + 0.5] })).reverse(), usage: { prompt_tokens: 7, total_tokens: 7 } });
    return;
  }
  switch (model) {
    case 'ok':
      return body['stream']
        ? sse(res, [
            ': keep-alive comment\n\n',
            chunk({ role: 'assistant', content: '' }),
            chunk({ content: 'Hel' }),
            chunk({ content: 'lo' }),
            chunk({}, 'stop'),
            ...(body['stream_options'] ? [{ ...chunk({}), choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }] : []),
            'data: [DONE]\n\n',
            chunk({ content: 'after done' }),
          ])
        : json(200, completion(model));
    case 'usage-inline':
      return sse(res, [chunk({ content: 'x' }), chunk({}, 'stop', { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }), 'data: [DONE]\n\n']);
    case 'midstream-error':
      return sse(res, [chunk({ content: 'partial' }), { error: { message: 'The server had an error', type: 'server_error' } }]);
    case 'truncated-stream':
      return sse(res, [chunk({ content: 'partial' })]);
    case 'fail500':
      return json(500, { error: { message: 'boom', type: 'server_error' } });
    case 'fail400':
      return json(400, { error: { message: "Invalid 'messages'", type: 'invalid_request_error' } });
    case 'ratelimit':
      return json(429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '7' });
    case 'text-error':
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
      return;
    case 'garbage':
      res.writeHead(200, { 'content-type': 'application/json' });
      // A broken upstream that echoes the prompt in a body that is not JSON.
      res.end('not json: the prompt was "my card is 4111 1111 1111 1111"');
      return;
    case 'slow': {
      const timer = setTimeout(() => json(200, completion(model)), 5000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    case 'stall-stream': {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(chunk({ content: 'first' }))}\n\n`);
      const timer = setTimeout(() => res.end('data: [DONE]\n\n'), 5000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    default:
      json(404, { error: { message: `unknown model ${model}` } });
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
});

const signal = new AbortController().signal;
const provider = (more: { apiKey?: string; timeoutMs?: number; headers?: Record<string, string>; baseUrl?: string } = {}): Provider =>
  createOpenAiCompatibleProvider({ baseUrl: `${base}/v1`, timeoutMs: 2000, ...more });
const request = (model: string, more: Partial<UpstreamChatRequest> = {}): UpstreamChatRequest => ({ model, temperature: 0.3, messages: [{ role: 'user', content: 'Hi' }], ...more });

async function collect(iterable: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = [];
  for await (const c of iterable) out.push(c);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

async function upstreamFailure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('openai-compatible provider: chat', () => {
  it('posts to /chat/completions with the bearer key and returns the completion', async () => {
    const result = await provider({ apiKey: 'sk-test', headers: { 'x-extra': '1' } }).chat(request('ok'), signal);
    expect(result).toEqual(completion('ok'));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe('/v1/chat/completions');
    expect(seen[0]!.headers['authorization']).toBe('Bearer sk-test');
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(seen[0]!.headers['x-extra']).toBe('1');
    expect(seen[0]!.body).toEqual({ model: 'ok', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.3 });
  });

  it('sends no Authorization header without a key', async () => {
    await provider().chat(request('ok'), signal);
    expect(seen[0]!.headers['authorization']).toBeUndefined();
  });

  it('sends optional parameters only when set', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } }];
    await provider().chat(request('ok', { max_tokens: 50, top_p: 0.5, stop: ['x'], tools, tool_choice: 'required' }), signal);
    expect(seen[0]!.body).toMatchObject({ max_tokens: 50, top_p: 0.5, stop: ['x'], tools, tool_choice: 'required' });
    expect(chatBody(request('m', { tool_choice: 'none', tools: [], stop: [] }), false)).toEqual({ model: 'm', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.3 });
  });

  it('keeps the query string of an Azure-style base URL', async () => {
    const azure = createOpenAiCompatibleProvider({ baseUrl: `${base}/openai/deployments/gpt-4o?api-version=2024-06-01`, timeoutMs: 2000, headers: { 'api-key': 'az' } });
    await azure.chat(request('ok'), signal);
    await azure.embed('text-embedding-3-small', ['a'], signal);
    expect(seen.map((s) => s.url)).toEqual(['/openai/deployments/gpt-4o/chat/completions?api-version=2024-06-01', '/openai/deployments/gpt-4o/embeddings?api-version=2024-06-01']);
    expect(seen[0]!.headers['api-key']).toBe('az');
    expect(joinUrl('https://api.openai.com/v1/', '/embeddings')).toBe('https://api.openai.com/v1/embeddings');
  });
});

describe('openai-compatible provider: streaming', () => {
  it('streams chunks until [DONE], with the usage chunk when asked', async () => {
    const chunks = await collect(provider().chatStream(request('ok', { include_usage: true }), signal));
    expect(seen[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(seen[0]!.headers['accept']).toBe('text/event-stream');
    expect(chunks.map((c) => c.choices[0]?.delta.content)).toEqual(['', 'Hel', 'lo', undefined, undefined]);
    expect(chunks[3]!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks[4]).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
  });

  it('does not ask for usage unless include_usage', async () => {
    const chunks = await collect(provider().chatStream(request('ok'), signal));
    expect(seen[0]!.body['stream']).toBe(true);
    expect(seen[0]!.body).not.toHaveProperty('stream_options');
    expect(chunks).toHaveLength(4);
  });

  it('moves usage attached to a choices chunk into a final usage chunk', async () => {
    const chunks = await collect(provider().chatStream(request('usage-inline', { include_usage: true }), signal));
    expect(chunks).toHaveLength(3);
    expect(chunks[1]!.usage).toBeNull();
    expect(chunks[2]).toEqual({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1700000000, model: 'm', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
  });

  it('throws an UpstreamError for an error event in the stream', async () => {
    const seenChunks: ChatCompletionChunk[] = [];
    const error = await upstreamFailure(
      (async () => {
        for await (const c of provider().chatStream(request('midstream-error'), signal)) seenChunks.push(c);
      })(),
    );
    expect(seenChunks).toHaveLength(1);
    expect(error.message).toContain('server_error');
    expect(error.message).not.toContain('The server had an error');
    expect(error.retryable).toBe(true);
  });

  it('throws a retryable UpstreamError when the stream ends early', async () => {
    const error = await upstreamFailure(collect(provider().chatStream(request('truncated-stream'), signal)));
    expect(error.retryable).toBe(true);
  });

  it('classifies HTTP errors of a streaming request', async () => {
    const error = await upstreamFailure(collect(provider().chatStream(request('ratelimit'), signal)));
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 7000 });
  });

  it('times out when the upstream stalls between chunks', async () => {
    const got: ChatCompletionChunk[] = [];
    const error = await upstreamFailure(
      (async () => {
        for await (const c of provider({ timeoutMs: 200 }).chatStream(request('stall-stream'), signal)) got.push(c);
      })(),
    );
    expect(got).toHaveLength(1);
    expect(error).toMatchObject({ status: undefined, retryable: true });
    expect(error.message).toMatch(/timed out/);
  });

  it('propagates a caller abort mid-stream as an AbortError', async () => {
    const controller = new AbortController();
    const error = await failure(
      (async () => {
        for await (const c of provider().chatStream(request('stall-stream'), controller.signal)) {
          expect(c.choices[0]!.delta.content).toBe('first');
          setTimeout(() => controller.abort(), 20);
        }
      })(),
    );
    expect(error).not.toBeInstanceOf(UpstreamError);
    expect((error as Error).name).toBe('AbortError');
  });
});

describe('openai-compatible provider: errors', () => {
  it('turns a 500 into a retryable UpstreamError naming the error\'s kind, not its message', async () => {
    const error = await upstreamFailure(provider().chat(request('fail500'), signal));
    expect(error).toMatchObject({ status: 500, retryable: true, retryAfterMs: undefined });
    expect(error.message).toBe('chat completion: HTTP 500 (server_error), 50 bytes of error body not shown');
  });

  it('turns a 429 into a retryable UpstreamError with Retry-After', async () => {
    const error = await upstreamFailure(provider().chat(request('ratelimit'), signal));
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 7000 });
    expect(error.message).not.toContain('Rate limit reached');
  });

  it('turns a 400 into a non-retryable UpstreamError', async () => {
    const error = await upstreamFailure(provider().chat(request('fail400'), signal));
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect(error.message).toContain('(invalid_request_error)');
    expect(error.message).not.toContain("Invalid 'messages'");
  });

  it('never puts a non-JSON error body in the message', async () => {
    const error = await upstreamFailure(provider().chat(request('text-error'), signal));
    expect(error).toMatchObject({ status: 502, retryable: true });
    expect(error.message).not.toContain('Bad gateway');
  });

  it('treats an invalid JSON answer as a retryable upstream failure, and never quotes it (it may echo the prompt)', async () => {
    const error = await upstreamFailure(provider().chat(request('garbage'), signal));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/invalid JSON \(\d+ bytes, not shown\)/);
    expect(error.message).not.toMatch(/prompt|4111/);
  });

  it('times out as a retryable UpstreamError without status', async () => {
    const started = Date.now();
    const error = await upstreamFailure(provider({ timeoutMs: 200 }).chat(request('slow'), signal));
    expect(error).toMatchObject({ status: undefined, retryable: true });
    expect(error.message).toMatch(/timed out after 200 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('propagates a caller abort as an AbortError, not as a retryable UpstreamError', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(provider().chat(request('slow'), controller.signal));
    expect(error).not.toBeInstanceOf(UpstreamError);
    expect((error as Error).name).toBe('AbortError');
    const already = await failure(provider().chat(request('ok'), AbortSignal.abort()));
    expect((already as Error).name).toBe('AbortError');
  });

  it('turns a connection failure into a retryable UpstreamError without status', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await upstreamFailure(createOpenAiCompatibleProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, timeoutMs: 2000 }).chat(request('ok'), signal));
    expect(error).toMatchObject({ status: undefined, retryable: true });
  });
});

describe('openai-compatible provider: embeddings', () => {
  it('posts the inputs and returns vectors in index order with prompt tokens', async () => {
    const result = await provider().embed('text-embedding-3-small', ['a', 'b', 'c'], signal);
    expect(seen[0]!.url).toBe('/v1/embeddings');
    expect(seen[0]!.body).toEqual({ model: 'text-embedding-3-small', input: ['a', 'b', 'c'] });
    expect(result).toEqual({ vectors: [[0, 0.5], [1, 1.5], [2, 2.5]], promptTokens: 7 });
  });
});
