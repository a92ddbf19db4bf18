import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { costUsd } from '@svc/llm/domain/cost';
import { promptTokenBound } from '@svc/llm/domain/prompt-bound';
import { estimateTextTokens } from '@svc/llm/domain/tokens';
import OpenAI from 'openai';
import pg from 'pg';
import { eventually } from './support/eventually.js';
import { answerFor, startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { call } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * Streams an upstream cuts short never look complete. The fake upstream drops its connection
 * mid-stream (no finish reason, no [DONE]); the client is the official `openai` SDK. Before the
 * first token the gateway falls back to the next deployment as for a whole answer; after it, the
 * client gets an OpenAI error event (the SDK throws APIError), and the ledger records the request
 * as failed, charged for the tokens delivered only.
 */

type FakeOpenAi = Awaited<ReturnType<typeof startFakeOpenAi>>;
const AGENT = 'stream-integrity';
const PRICE = { inputPerMTok: 1000, outputPerMTok: 2000 };

let platform: TestPlatform;
let primary: FakeOpenAi;
let backup: FakeOpenAi;
let client: OpenAI;
let sql: pg.Client;

const user = (content: string): OpenAI.ChatCompletionMessageParam[] => [{ role: 'user', content }];
const chatCalls = (fake: FakeOpenAi) => fake.calls.filter((c) => c.path.startsWith('/v1/chat/completions'));

/** Reads the stream as an application would; `error` is what the SDK threw, if anything. */
async function consume(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  let content = '';
  let finish: string | null = null;
  try {
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    return { content, finish, error: undefined };
  } catch (error) {
    return { content, finish, error };
  }
}

async function ledgerLine(requestId: string) {
  return eventually(async () => (await sql.query('select outcome, model, prompt_tokens, completion_tokens, cost_usd::float8 as cost from llm.usage_ledger where request_id = $1', [requestId])).rows[0], 10_000, `the ledger line of ${requestId}`);
}

beforeAll(async () => {
  primary = await startFakeOpenAi();
  backup = await startFakeOpenAi();
  const config = await writeGatewayConfig({
    providers: [
      { name: 'primary', kind: 'openai-compatible', baseUrl: primary.url },
      { name: 'backup', kind: 'openai-compatible', baseUrl: backup.url },
    ],
    models: [
      { name: 'fast-a', provider: 'primary', ...PRICE },
      { name: 'fast-b', provider: 'backup', ...PRICE },
    ],
    aliases: { 'fast-track': ['fast-a', 'fast-b'], 'deep-reasoning': ['fast-b'] },
    cooldownSeconds: 0,
    timeoutSeconds: 10,
  });
  platform = await startTestPlatform({ SVCLLM_CONFIG: config });
  const admin = { authorization: `Bearer ${TEST_MASTER_KEY}` };
  const created = await call(`${platform.bridge}/admin/v1/keys`, { headers: admin, json: { agentCode: AGENT } });
  expect(created.status).toBe(201);
  expect((await call(`${platform.bridge}/admin/v1/budgets`, { headers: admin, json: { agentCode: AGENT, monthlyBudgetUsd: 100, hardLimitEnabled: true } })).status).toBe(200);
  client = new OpenAI({ baseURL: `${platform.bridge}/v1`, apiKey: created.body.key, maxRetries: 0, timeout: 15_000 });
  sql = new pg.Client({ connectionString: platform.databaseUrl });
  await sql.connect();
}, 60_000);

afterAll(async () => {
  await sql?.end();
  await platform?.close();
  await primary?.close();
  await backup?.close();
});

describe('a stream the upstream cuts', () => {
  it('before its first token: falls back to the next deployment, and the client sees one complete answer', async () => {
    primary.set({ cutAfterWords: 0 });
    const prompt = 'cut before the first token please';
    const [primaryBefore, backupBefore] = [chatCalls(primary).length, chatCalls(backup).length];
    const { data: stream, response } = await client.chat.completions.create({ model: 'fast-track', messages: user(prompt), stream: true, stream_options: { include_usage: true } }, { headers: { 'x-request-id': 'cut-before-first' } }).withResponse();
    const read = await consume(stream);
    expect(read.error).toBeUndefined();
    expect(read.content).toBe(answerFor({ messages: user(prompt) }));
    expect(read.finish).toBe('stop');
    expect(response.headers.get('x-svc-model')).toBe('fast-b');
    expect(chatCalls(primary).length).toBe(primaryBefore + 1); // tried, cut, abandoned...
    expect(chatCalls(backup).length).toBe(backupBefore + 1); // ...and answered by the next one
    const line = await ledgerLine('cut-before-first');
    expect(line).toMatchObject({ outcome: 'ok', model: 'fast-b' });
  });

  it('before its first token on every deployment: an HTTP 502, never a 200', async () => {
    primary.set({ cutAfterWords: 0 });
    backup.set({ cutAfterWords: 0 });
    try {
      const error = await client.chat.completions.create({ model: 'fast-track', messages: user('nobody finishes'), stream: true }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
      expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_error');
    } finally {
      backup.set({});
    }
  });

  it('after tokens reached the client: an OpenAI error event, no [DONE], logged failed and charged for what was delivered', async () => {
    primary.set({ cutAfterWords: 3 });
    const prompt = 'one two three four five six seven';
    const backupBefore = chatCalls(backup).length;
    const stream = await client.chat.completions.create({ model: 'fast-a', messages: user(prompt), stream: true, stream_options: { include_usage: true } }, { headers: { 'x-request-id': 'cut-mid-stream' } });
    const read = await consume(stream);
    const delivered = answerFor({ messages: user(prompt) }).split(' ').slice(0, 3).join(' ');
    expect(read.content).toBe(delivered);
    expect(read.finish).toBeNull(); // it never looked finished...
    expect(read.error).toBeInstanceOf(OpenAI.APIError); // ...the SDK raised the error event
    expect((read.error as Error).message).toMatch(/^Upstream model provider failed: chat completion stream/);
    expect(chatCalls(backup).length).toBe(backupBefore); // no fallback once tokens were sent

    // On the wire: an error event in OpenAI's shape, then the stream closes without [DONE].
    const raw = await fetch(`${platform.bridge}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fast-a', messages: user(prompt), stream: true }),
    });
    expect(raw.status).toBe(200);
    const events = (await raw.text()).split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, ''));
    expect(events).not.toContain('[DONE]');
    expect(JSON.parse(events.at(-1)!)).toEqual({ error: { message: expect.stringMatching(/Upstream model provider failed/), type: 'api_error', param: null, code: 'upstream_error' } });

    const line = await ledgerLine('cut-mid-stream');
    const prompt_tokens = promptTokenBound(user(prompt) as never, undefined);
    const completion_tokens = estimateTextTokens(delivered);
    expect(line).toMatchObject({ outcome: 'error', model: 'fast-a', prompt_tokens, completion_tokens });
    expect(line.cost).toBeCloseTo(costUsd(prompt_tokens, completion_tokens, PRICE), 8);
    // Far below what was held for it (the output limit's worth of tokens).
    expect(line.cost).toBeLessThan(costUsd(prompt_tokens, 4096, PRICE) / 100);
    primary.set({});
  });
});
