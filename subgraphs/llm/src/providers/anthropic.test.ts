import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpstreamError, type ChatCompletionChunk, type UpstreamChatRequest } from '../domain/openai-types.js';
import { createAnthropicProvider } from './anthropic.js';

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

let server: Server;
let base: string;
let seen: Seen[] = [];

const event = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const streamEvents = [
  event('message_start', { message: { id: 'msg_s', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, usage: { input_tokens: 11, output_tokens: 1 } } }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  event('ping', {}),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' there' } }),
  event('content_block_stop', { index: 0 }),
  event('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} } }),
  event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"q":' } }),
  event('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '"x"}' } }),
  event('content_block_stop', { index: 1 }),
  event('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
  event('message_stop', {}),
];

function handle(res: ServerResponse, body: Record<string, unknown>): void {
  const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(payload));
  };
  const sse = (parts: string[]) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const p of parts) res.write(p);
    res.end();
  };
  switch (body['model']) {
    case 'ok':
      if (body['stream']) return sse(streamEvents);
      return json(200, {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [{ type: 'text', text: 'Hello!' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 3 },
      });
    case 'overloaded-stream':
      return sse([streamEvents[0]!, event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })]);
    case 'overloaded':
      return json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { 'retry-after': '3' });
    case 'bad':
      return json(400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: must be positive' } });
    case 'slow': {
      const timer = setTimeout(() => json(200, {}), 5000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    default:
      json(404, { type: 'error', error: { type: 'not_found_error', message: 'model not found' } });
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      handle(res, body);
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
const provider = (more: { baseUrl?: string; timeoutMs?: number; version?: string } = {}) => createAnthropicProvider({ baseUrl: base, apiKey: 'sk-ant', timeoutMs: 2000, ...more });
const request = (model: string, more: Partial<UpstreamChatRequest> = {}): UpstreamChatRequest => ({
  model,
  temperature: 1.5,
  messages: [
    { role: 'system', content: 'Be nice.' },
    { role: 'user', content: 'Hi' },
  ],
  ...more,
});

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

async function collect(iterable: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = [];
  for await (const c of iterable) out.push(c);
  return out;
}

describe('anthropic provider', () => {
  it('posts a translated request to /v1/messages with the Anthropic headers', async () => {
    const completion = await provider().chat(request('ok', { max_tokens: 200 }), signal);
    expect(seen[0]!.url).toBe('/v1/messages');
    expect(seen[0]!.headers['x-api-key']).toBe('sk-ant');
    expect(seen[0]!.headers['anthropic-version']).toBe('2023-06-01');
    expect(seen[0]!.headers['authorization']).toBeUndefined();
    expect(seen[0]!.body).toEqual({ model: 'ok', system: 'Be nice.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], max_tokens: 200, temperature: 1 });
    expect(completion).toMatchObject({
      id: 'msg_1',
      object: 'chat.completion',
      model: 'claude-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    });
    expect(typeof completion.created).toBe('number');
  });

  it('accepts a base URL that already ends in /v1 and a custom version', async () => {
    await provider({ baseUrl: `${base}/v1`, version: '2024-01-01' }).chat(request('ok'), signal);
    expect(seen[0]!.url).toBe('/v1/messages');
    expect(seen[0]!.headers['anthropic-version']).toBe('2024-01-01');
  });

  it('streams translated chunks with usage', async () => {
    const chunks = await collect(provider().chatStream(request('ok', { include_usage: true }), signal));
    expect(seen[0]!.body['stream']).toBe(true);
    expect(seen[0]!.headers['accept']).toBe('text/event-stream');
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Hi' },
      { content: ' there' },
      { tool_calls: [{ index: 0, id: 'toolu_1', type: 'function', function: { name: 'lookup', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] },
      {},
      undefined,
    ]);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({ id: 'msg_s', model: 'claude-test', choices: [], usage: { prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 } });
  });

  it('throws a retryable UpstreamError for an overloaded error event mid-stream', async () => {
    const error = await failure(collect(provider().chatStream(request('overloaded-stream'), signal)));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ retryable: true });
    expect((error as Error).message).toContain('Overloaded');
  });

  it('treats 529 overloaded as retryable, with Retry-After', async () => {
    const error = await failure(provider().chat(request('overloaded'), signal));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 529, retryable: true, retryAfterMs: 3000 });
    const streamed = await failure(collect(provider().chatStream(request('overloaded'), signal)));
    expect(streamed).toMatchObject({ status: 529, retryable: true });
  });

  it('treats a 400 as not retryable and keeps the error\'s kind, not its message', async () => {
    const error = await failure(provider().chat(request('bad'), signal));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect((error as Error).message).toContain('HTTP 400 (invalid_request_error)');
    expect((error as Error).message).not.toContain('max_tokens: must be positive');
  });

  it('times out as retryable, and a caller abort is an AbortError', async () => {
    const timedOut = await failure(provider({ timeoutMs: 150 }).chat(request('slow'), signal));
    expect(timedOut).toBeInstanceOf(UpstreamError);
    expect(timedOut).toMatchObject({ status: undefined, retryable: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const aborted = await failure(provider().chat(request('slow'), controller.signal));
    expect(aborted).not.toBeInstanceOf(UpstreamError);
    expect((aborted as Error).name).toBe('AbortError');
  });

  it('has no embeddings', async () => {
    const error = await failure(provider().embed('any', ['x'], signal));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ message: 'Anthropic has no embeddings API', status: 400, retryable: false });
    expect(seen).toHaveLength(0);
  });
});
