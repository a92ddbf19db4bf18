import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { createLogger, loadOperations, OPERATIONS_DIR, type RunningServer } from '@svc/kit';
import { ROUTES, startBridge } from '@svc/rest-bridge';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * The gateway's OpenAI paths served natively by the llm service: through the bridge in one
 * process (no socket) and through a bridge of its own (a keep-alive pass-through), with the
 * fidelity the official SDK expects (unique ids, real times, models.retrieve, parameters never
 * ignored), and the same answer as GraphQL's chatCompletion.
 */

let platform: TestPlatform;
let separateBridge: RunningServer;
let agentKey: string;
const clients: Record<string, OpenAI> = {};

beforeAll(async () => {
  platform = await startTestPlatform();
  const key = await call(`${platform.bridge}/admin/v1/keys`, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` }, json: { agentCode: 'fidelity' } });
  agentKey = key.body.key;
  separateBridge = await startBridge(
    {
      routes: ROUTES,
      operations: await loadOperations(OPERATIONS_DIR),
      routerUrl: platform.router,
      log: createLogger({ level: 'silent' }),
      maxBodyBytes: 1_000_000,
      corsOrigins: [],
      trustedProxies: [],
      streamTargets: { llm: platform.urls.llm!.replace(/\/graphql$/, '') },
    },
    0,
    '127.0.0.1',
  );
  clients['in one process'] = new OpenAI({ baseURL: `${platform.bridge}/v1`, apiKey: agentKey, maxRetries: 0 });
  clients['through a separate bridge'] = new OpenAI({ baseURL: `${separateBridge.url}/v1`, apiKey: agentKey, maxRetries: 0 });
});
afterAll(async () => {
  await separateBridge?.close();
  await platform?.close();
});

describe.each(['in one process', 'through a separate bridge'])('the OpenAI paths %s', (how) => {
  const client = () => clients[how]!;

  it('give every completion its own id and the real time, cache hits included', async () => {
    const before = Math.floor(Date.now() / 1000) - 1;
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: `Summarise the quarter (${how})` }];
    const bypass = { svcllm_options: { cacheBypass: true } } as object;
    const a = await client().chat.completions.create({ model: 'fast-track', messages, ...bypass });
    const b = await client().chat.completions.create({ model: 'fast-track', messages, ...bypass });
    expect(a.id).not.toBe(b.id);
    expect(a.choices[0]!.message.content).toBe(b.choices[0]!.message.content);
    expect(a.created).toBeGreaterThanOrEqual(before);
    const { data: hit, response } = await client().chat.completions.create({ model: 'fast-track', messages }).withResponse();
    expect(response.headers.get('x-svc-cache')).toMatch(/^(HIT|MISS)$/);
    const { data: again, response: second } = await client().chat.completions.create({ model: 'fast-track', messages }).withResponse();
    expect(second.headers.get('x-svc-cache')).toBe('HIT');
    expect(again.id).not.toBe(hit.id);
    expect(again.created).toBeGreaterThanOrEqual(before);
  });

  it('stream chunks with one id per answer and the real time', async () => {
    const stream = await client().chat.completions.create({ model: 'fast-track', stream: true, messages: [{ role: 'user', content: `Stream it (${how})` }] });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.created).toBeGreaterThan(1_700_000_000);
  });

  it('retrieve one model, and answer an unknown one with NotFound', async () => {
    expect(await client().models.retrieve('fast-track')).toMatchObject({ id: 'fast-track', object: 'model' });
    await expect(client().models.retrieve('no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect((await client().models.list()).data.map((m) => m.id)).toContain('svc-local-embedding');
  });

  it('never ignore a parameter: n > 1 and dimensions the model cannot give are 400 naming them', async () => {
    const n = await client().chat.completions.create({ model: 'fast-track', n: 2, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(n).toBeInstanceOf(OpenAI.BadRequestError);
    expect((n as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('n');
    const dims = await client().embeddings.create({ model: 'svc-local-embedding', input: 'revenue', dimensions: 64 }).catch((e: unknown) => e);
    expect(dims).toBeInstanceOf(OpenAI.BadRequestError);
    expect((dims as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('dimensions');
    const ok = await client().embeddings.create({ model: 'svc-local-embedding', input: 'revenue', dimensions: 384, encoding_format: 'float' });
    expect(ok.data[0]!.embedding).toHaveLength(384);
  });

  it('say that a chat alias is not an embedding model, and list the embedding models', async () => {
    const error = await client().embeddings.create({ model: 'fast-track', input: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as Error).message).toContain('"fast-track" is a chat model, not an embedding model; embedding models here: svc-local-embedding');
  });
});

describe('one code path for REST and GraphQL', () => {
  it('gives the same completion to GraphQL chatCompletion and to POST /v1/chat/completions', async () => {
    const request = { model: 'fast-track', messages: [{ role: 'user', content: 'Compare both paths' }], svcllm_options: { cacheBypass: true } };
    const rest = await call(`${platform.bridge}/v1/chat/completions`, { headers: { authorization: `Bearer ${agentKey}` }, json: request });
    const graph = await gql(platform.router, 'mutation($r: JSONObject!) { chatCompletion(request: $r) { completion model cacheStatus } }', { r: request }, { authorization: `Bearer ${agentKey}` });
    expect(rest.status).toBe(200);
    const viaGraph = graph.body.data.chatCompletion;
    const strip = (c: { id: string; created: number }) => ({ ...c, id: undefined, created: undefined });
    expect(strip(viaGraph.completion)).toEqual(strip(rest.body));
    expect(viaGraph.model).toBe(rest.headers.get('x-svc-model'));
    expect(viaGraph.cacheStatus).toBe(rest.headers.get('x-svc-cache'));
  });
});
