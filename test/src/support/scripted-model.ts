import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatCompletion, ChatCompletionCreateParams, ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';

/**
 * A model provider with a script: an OpenAI-compatible chat endpoint whose answers a test
 * writes as functions of the request, typed with the official `openai` SDK's types. It stands
 * for a real model behind the gateway (tool calls, JSON judgments, failures).
 */
export type Script = (request: ChatCompletionCreateParams) => Answer;
export type Answer =
  | { toolCall: { name: string; arguments: string } }
  | { content: string }
  /** An HTTP failure, or a 200 whose body is cut off. */
  | { status: number }
  | { truncated: true };

/** The tool a request forces (`tool_choice` naming a function), if any. */
export const forcedTool = (r: ChatCompletionCreateParams) => (typeof r.tool_choice === 'object' && r.tool_choice && 'function' in r.tool_choice ? r.tool_choice.function.name : undefined);

/** The arguments the runner's instruction spells out (`Call x with a: 1, b: "two"`), as JSON. */
export function spelledArguments(r: ChatCompletionCreateParams): string {
  const last = [...r.messages].reverse().find((m) => m.role === 'user');
  const text = typeof last?.content === 'string' ? last.content : '';
  const spelled = /Call \w+ with (.*)\.$/s.exec(text)?.[1] ?? '';
  const args: Record<string, unknown> = {};
  for (const m of spelled.matchAll(/(\w+): ("(?:[^"\\]|\\.)*"|[^,]*)/g)) {
    const raw = m[2]!.trim();
    args[m[1]!] = raw.startsWith('"') ? JSON.parse(raw) : raw !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : raw;
  }
  return JSON.stringify(args);
}

/** The tool results the model has seen so far, newest last. */
export const toolResults = (r: ChatCompletionCreateParams) => r.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

async function body(req: IncomingMessage): Promise<ChatCompletionCreateParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatCompletionCreateParams;
}

export async function startScriptedModel(initial: Script) {
  let script = initial;
  const requests: ChatCompletionCreateParams[] = [];
  const server = createServer((req, res) => {
    void (async (): Promise<void> => {
      const request = await body(req);
      requests.push(request);
      const answer = script(request);
      if ('status' in answer) {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }));
        return;
      }
      if ('truncated' in answer) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assi');
        return;
      }
      const toolCalls: ChatCompletionMessageToolCall[] | undefined = 'toolCall' in answer
        ? [{ id: `call_${requests.length}`, type: 'function', function: { name: answer.toolCall.name, arguments: answer.toolCall.arguments } }]
        : undefined;
      const completion: ChatCompletion = {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [{
          index: 0,
          finish_reason: toolCalls ? 'tool_calls' : 'stop',
          logprobs: null,
          message: { role: 'assistant', content: 'content' in answer ? answer.content : null, refusal: null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        }],
        usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion));
    })().catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    set(next: Script) {
      script = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
