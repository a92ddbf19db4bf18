import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How a fake upstream behaves; change it between tests with `set`. */
export interface FakeBehaviour {
  /** Answer every call with this HTTP status (and an error body) instead of a completion. */
  failWith?: number;
  /** Delay before answering, ms. */
  delayMs?: number;
  /** Delay between streamed chunks, ms. */
  chunkDelayMs?: number;
  /** Usage the upstream reports; default prompt 10, completion = words of the answer. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Report no usage at all (the gateway then estimates). */
  omitUsage?: boolean;
  /** With failWith: the error body quotes the request's last user message, as some providers do. */
  echoInError?: boolean;
  /** Answer non-streamed chat with this 200 body instead of a completion (a broken upstream). */
  rawBody?: string;
  /** Streams: close the connection after this many content chunks (0: right after the role chunk), with no finish reason and no [DONE]. */
  cutAfterWords?: number;
}

export interface RecordedCall {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/** The answer is deterministic: it echoes the last user message, so tests can see what the upstream saw. */
export function answerFor(body: any): string {
  const last = [...(body.messages ?? [])].reverse().find((m: any) => m.role === 'user');
  const text = typeof last?.content === 'string' ? last.content : Array.isArray(last?.content) ? last.content.map((p: any) => p.text ?? '').join('') : '';
  return `echo: ${text}`;
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

const sleep = (ms?: number) => (ms ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  const server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A local OpenAI-compatible provider (chat, SSE streaming, embeddings) standing for the outside world. */
export async function startFakeOpenAi(initial: FakeBehaviour = {}) {
  let behaviour: FakeBehaviour = { ...initial };
  const calls: RecordedCall[] = [];
  const { server, port } = await listen(async (req, res) => {
    const body = await readJson(req);
    calls.push({ path: req.url ?? '', headers: req.headers, body });
    await sleep(behaviour.delayMs);
    if (behaviour.failWith) {
      res.writeHead(behaviour.failWith, { 'content-type': 'application/json', ...(behaviour.failWith === 429 ? { 'retry-after': '1' } : {}) });
      const message = behaviour.echoInError ? `Invalid request near "${answerFor(body)}"` : `fake upstream failure ${behaviour.failWith}`;
      res.end(JSON.stringify({ error: { message, type: behaviour.echoInError ? 'invalid_request_error' : 'server_error' } }));
      return;
    }
    if (req.url?.startsWith('/v1/embeddings')) {
      const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const data = inputs.map((text, index) => ({ object: 'embedding', index, embedding: Array.from({ length: 8 }, (_, i) => ((text.charCodeAt(i % Math.max(1, text.length)) || 0) % 17) / 17) }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: inputs.join(' ').split(/\s+/).length, total_tokens: inputs.join(' ').split(/\s+/).length } }));
      return;
    }
    if (behaviour.rawBody !== undefined && !body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(behaviour.rawBody);
      return;
    }
    const content = answerFor(body);
    const words = content.split(' ');
    const usage = behaviour.usage ?? { prompt_tokens: 10, completion_tokens: words.length };
    const full = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const id = `chatcmpl-fake-${calls.length}`;
    const created = 1_700_000_000;
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      const base = { id, object: 'chat.completion.chunk', created, model: body.model };
      send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      for (let i = 0; i < words.length; i++) {
        if (res.destroyed) return;
        if (i === behaviour.cutAfterWords) {
          // Let what was written leave, then drop the connection as a failing upstream would.
          await sleep(20);
          res.socket?.destroy();
          return;
        }
        await sleep(behaviour.chunkDelayMs);
        send({ ...base, choices: [{ index: 0, delta: { content: (i ? ' ' : '') + words[i] }, finish_reason: null }] });
      }
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      if (body.stream_options?.include_usage && !behaviour.omitUsage) send({ ...base, choices: [], usage: full });
      res.end('data: [DONE]\n\n');
      return;
    }
    const toolCall = body.tools?.length && body.tool_choice !== 'none'
      ? [{ id: 'call_fake_1', type: 'function', function: { name: body.tools[0].function.name, arguments: JSON.stringify({ query: content }) } }]
      : undefined;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id, object: 'chat.completion', created, model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: toolCall ? null : content, ...(toolCall ? { tool_calls: toolCall } : {}) }, finish_reason: toolCall ? 'tool_calls' : 'stop' }],
      ...(behaviour.omitUsage ? {} : { usage: full }),
    }));
  });
  return {
    /** Base URL as providers expect it: http://127.0.0.1:<port>/v1 */
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    set(next: FakeBehaviour) {
      behaviour = { ...next };
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A local Anthropic Messages API (JSON and SSE) standing for the outside world. */
export async function startFakeAnthropic(initial: FakeBehaviour = {}) {
  let behaviour: FakeBehaviour = { ...initial };
  const calls: RecordedCall[] = [];
  const { server, port } = await listen(async (req, res) => {
    const body = await readJson(req);
    calls.push({ path: req.url ?? '', headers: req.headers, body });
    await sleep(behaviour.delayMs);
    if (behaviour.failWith) {
      res.writeHead(behaviour.failWith, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: `fake anthropic failure ${behaviour.failWith}` } }));
      return;
    }
    const last = [...(body.messages ?? [])].reverse().find((m: any) => m.role === 'user');
    const text = `echo: ${typeof last?.content === 'string' ? last.content : (last?.content ?? []).map((b: any) => b.text ?? '').join('')}`;
    const usage = behaviour.usage ?? { prompt_tokens: 12, completion_tokens: text.split(' ').length };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      send('message_start', { type: 'message_start', message: { id: 'msg_fake', type: 'message', role: 'assistant', content: [], model: body.model, usage: { input_tokens: usage.prompt_tokens, output_tokens: 1 } } });
      send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      for (const [i, word] of text.split(' ').entries()) send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: (i ? ' ' : '') + word } });
      send('content_block_stop', { type: 'content_block_stop', index: 0 });
      send('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: usage.completion_tokens } });
      send('message_stop', { type: 'message_stop' });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens } }));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    set(next: FakeBehaviour) {
      behaviour = { ...next };
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Writes a gateway config file (SVCLLM_CONFIG) and returns its path. */
export async function writeGatewayConfig(config: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svcllm-config-'));
  const path = join(dir, 'gateway.json');
  await writeFile(path, JSON.stringify(config, null, 2));
  return path;
}
