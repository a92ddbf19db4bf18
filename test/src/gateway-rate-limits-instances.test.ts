import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { promptTokenBound } from '@svc/llm/domain/prompt-bound';
import { heldPromptTokens } from '@svc/llm/domain/tokens';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { startServiceProcess, type ServiceProcess } from './support/service-process.js';
import { call } from './support/http.js';
import { TEST_MASTER_KEY } from './support/platform.js';
import { createTestDatabase, REDIS_URL, requireRedis } from './support/services.js';

/**
 * Rate limits shared by gateway instances: two `svc llm` processes on one database and one
 * Redis, 200 requests against an agent limit of 50 requests per minute: 10 on one instance, then
 * 190 at once split between both. Exactly 50 are admitted (their remaining-requests headers are
 * 49 down to 0, each once), the other 150 get 429 with Retry-After and never reach the upstream.
 */

let fake: Awaited<ReturnType<typeof startFakeOpenAi>>;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const gateways: ServiceProcess[] = [];

beforeAll(async () => {
  await requireRedis();
  fake = await startFakeOpenAi({ delayMs: 20 });
  const config = await writeGatewayConfig({
    providers: [{ name: 'fake', kind: 'openai-compatible', baseUrl: fake.url }],
    models: [{ name: 'fast-a', provider: 'fake', inputPerMTok: 1, outputPerMTok: 1 }],
    aliases: { 'fast-track': ['fast-a'], 'deep-reasoning': ['fast-a'] },
  });
  database = await createTestDatabase();
  const env = { SVCLLM_CONFIG: config, REDIS_URL, SVC_REDIS_PREFIX: `svctest:limits:${process.pid}:${Date.now()}:` };
  // One after the other: both run the migrations at start.
  gateways.push(await startServiceProcess('llm', database.url, env));
  gateways.push(await startServiceProcess('llm', database.url, env));
}, 120_000);

afterAll(async () => {
  // What the instances logged as errors, so a failure here can be read from the CI log alone.
  for (const [i, gateway] of gateways.entries()) {
    const errors = gateway.output().split('\n').filter((line) => /"level":(50|60)/.test(line));
    if (errors.length) process.stdout.write(`gateway ${i ? 'b' : 'a'} logged ${errors.length} errors:\n${errors.slice(0, 20).join('\n')}\n`);
  }
  for (const gateway of gateways) await gateway.stop();
  await database?.drop();
  await fake?.close();
});

describe('an agent limit shared by two gateway processes', () => {
  it('admits exactly 50 of 200 requests (190 at once, split between them) against 50 per minute', async () => {
    const [a, b] = gateways as [ServiceProcess, ServiceProcess];
    const master = { authorization: `Bearer ${TEST_MASTER_KEY}` };
    const key = await call(`${a.url}/graphql`, { headers: master, json: { query: 'mutation { createApiKey(agentCode: "shared-limit", name: "load") { key } }' } });
    const agentKey: string = key.body.data.createApiKey.key;
    const set = await call(`${b.url}/graphql`, { headers: master, json: { query: 'mutation { setAgentLimits(agentCode: "shared-limit", input: { requestsPerMinute: 50 }) { requestsPerMinute } }' } });
    expect(set.body.data.setAgentLimits.requestsPerMinute).toBe(50);

    const before = fake.calls.length;
    const send = (gateway: ServiceProcess, i: number) =>
      call(`${gateway.url}/v1/chat/completions`, {
        headers: { authorization: `Bearer ${agentKey}` },
        json: { model: 'fast-a', max_tokens: 5, messages: [{ role: 'user', content: `request ${i}` }] },
      });
    // Ten first, on b alone: a must count them too (which instance wins the burst below is up to the scheduler).
    const first: Awaited<ReturnType<typeof send>>[] = [];
    for (let i = 0; i < 10; i++) first.push(await send(b, i));
    expect(first.map((r) => r.headers.get('x-ratelimit-remaining-requests'))).toEqual(['49', '48', '47', '46', '45', '44', '43', '42', '41', '40']);
    const burst = await Promise.all(Array.from({ length: 190 }, (_, i) => send(i % 2 ? a : b, 10 + i)));
    const replies = [...first, ...burst];
    const admitted = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    process.stdout.write(`two processes, 200 requests (190 concurrent), limit 50/min: ${admitted.length} admitted (burst on a: ${burst.filter((r, i) => i % 2 && r.status === 200).length}, on b: ${burst.filter((r, i) => !(i % 2) && r.status === 200).length}), ${refused.length} refused\n`);
    expect(admitted).toHaveLength(50);
    expect(refused).toHaveLength(150);
    // Each admission saw a different count: 49 left down to 0, each exactly once.
    expect(admitted.map((r) => Number(r.headers.get('x-ratelimit-remaining-requests'))).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    for (const r of refused) {
      expect(r.body.error.code).toBe('rate_limit_exceeded');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(r.headers.get('x-ratelimit-limit-requests')).toBe('50');
    }
    expect(fake.calls.length - before).toBe(50); // refused requests cost nothing upstream
    // Both instances answered their share of the burst from the same window.
    expect(burst.filter((_, i) => i % 2).every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(burst.filter((_, i) => !(i % 2)).every((r) => r.status === 200 || r.status === 429)).toBe(true);

    // And all 200 at once, split between the instances, for another agent with the same limit.
    const burstKey: string = (await call(`${a.url}/graphql`, { headers: master, json: { query: 'mutation { createApiKey(agentCode: "shared-burst") { key } }' } })).body.data.createApiKey.key;
    await call(`${b.url}/graphql`, { headers: master, json: { query: 'mutation { setAgentLimits(agentCode: "shared-burst", input: { requestsPerMinute: 50 }) { requestsPerMinute } }' } });
    const all = await Promise.all(Array.from({ length: 200 }, (_, i) =>
      call(`${(i % 2 ? a : b).url}/v1/chat/completions`, { headers: { authorization: `Bearer ${burstKey}` }, json: { model: 'fast-a', max_tokens: 5, messages: [{ role: 'user', content: `burst ${i}` }] } })));
    const allAdmitted = all.filter((r) => r.status === 200);
    process.stdout.write(`two processes, 200 concurrent requests, limit 50/min: ${allAdmitted.length} admitted (a: ${all.filter((r, i) => i % 2 && r.status === 200).length}, b: ${all.filter((r, i) => !(i % 2) && r.status === 200).length})\n`);
    expect(allAdmitted).toHaveLength(50);
    expect(all.filter((r) => r.status === 429)).toHaveLength(150);
    expect(allAdmitted.map((r) => Number(r.headers.get('x-ratelimit-remaining-requests'))).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  }, 60_000);

  it('shares token and concurrency limits too: exactly what fits the TPM estimate, and never more in flight than allowed', async () => {
    const [a, b] = gateways as [ServiceProcess, ServiceProcess];
    const master = { authorization: `Bearer ${TEST_MASTER_KEY}` };
    const graphql = async (gateway: ServiceProcess, query: string) => (await call(`${gateway.url}/graphql`, { headers: master, json: { query } })).body.data;
    const tpmKey: string = (await graphql(a, 'mutation { createApiKey(agentCode: "shared-tpm") { key } }')).createApiKey.key;
    const concKey: string = (await graphql(a, 'mutation { createApiKey(agentCode: "shared-conc") { key } }')).createApiKey.key;
    const messages = [{ role: 'user' as const, content: 'the same prompt every time' }];
    const estimate = heldPromptTokens(promptTokenBound(messages, undefined), messages) + 5;
    const tpm = 10 * estimate + Math.floor(estimate / 2); // ten and a half requests' worth
    await graphql(b, `mutation { setAgentLimits(agentCode: "shared-tpm", input: { tokensPerMinute: ${tpm} }) { tokensPerMinute } }`);
    await graphql(b, 'mutation { setAgentLimits(agentCode: "shared-conc", input: { maxConcurrent: 5 }) { maxConcurrent } }');

    fake.set({ delayMs: 1500 }); // every admitted request is still in flight when the last one arrives
    let inFlight = 0;
    let peak = 0;
    const send = (key: string, i: number) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      return call(`${(i % 2 ? a : b).url}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, json: { model: 'fast-a', max_tokens: 5, messages } }).finally(() => inFlight--);
    };
    try {
      const tpmReplies = await Promise.all(Array.from({ length: 100 }, (_, i) => send(tpmKey, i)));
      expect(tpmReplies.filter((r) => r.status === 200)).toHaveLength(10);
      expect(tpmReplies.filter((r) => r.status === 429).every((r) => r.body.error.code === 'rate_limit_exceeded' && r.body.error.type === 'tokens')).toBe(true);

      const upstreamBefore = fake.calls.length;
      const concReplies = await Promise.all(Array.from({ length: 60 }, (_, i) => send(concKey, i)));
      expect(concReplies.filter((r) => r.status === 200)).toHaveLength(5);
      expect(fake.calls.length - upstreamBefore).toBe(5);
      for (const r of concReplies.filter((reply) => reply.status === 429)) expect(r.headers.get('retry-after')).toBe('1');
      expect(peak).toBeGreaterThan(5); // the load really was concurrent
    } finally {
      fake.set({ delayMs: 20 });
    }
    // Slots free as requests end: the next one is admitted.
    expect((await send(concKey, 0)).status).toBe(200);
  }, 60_000);
});
