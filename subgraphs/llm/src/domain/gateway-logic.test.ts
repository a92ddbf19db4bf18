import { describe, expect, it } from '@jest/globals';
import { hash } from 'node:crypto';
import fc from 'fast-check';
import { SvcError } from '@svc/kit';
import { AUTO_ROUTE_PROMPT_TOKENS, autoRoute } from './auto-route.js';
import { budgetRecord } from './budget-status.js';
import { canonicalJson, chatCacheKey } from './cache-key.js';
import { parseChatRequest, parseEmbeddingRequest } from '../service/chat-request.js';
import { costUsd, roundUsd, worstCaseUsd } from './cost.js';
import { LOCAL_MODEL, resolveGatewayConfig } from './gateway-config.js';
import { periodBounds, periodOf } from './period.js';

const user = (content: string) => ({ role: 'user' as const, content });

function badRequest(fn: () => unknown): { param: unknown; message: string } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SvcError);
    const details = (error as SvcError).extensions.details as { param: unknown };
    return { param: details.param, message: (error as SvcError).message };
  }
  throw new Error('expected a BAD_USER_INPUT error');
}

describe('cost', () => {
  it('prices tokens per million and rounds up to the micro-dollar', () => {
    expect(costUsd(1_000_000, 0, { inputPerMTok: 2.5, outputPerMTok: 10 })).toBe(2.5);
    expect(costUsd(10, 10, { inputPerMTok: 1000, outputPerMTok: 1000 })).toBe(0.02);
    expect(costUsd(1, 0, { inputPerMTok: 0.15, outputPerMTok: 0 })).toBe(0.000001);
    expect(roundUsd(0.0000001)).toBe(0.000001);
  });

  it('takes the dearest deployment for the worst case', () => {
    expect(worstCaseUsd(100, 50, [{ inputPerMTok: 1, outputPerMTok: 1 }, { inputPerMTok: 10, outputPerMTok: 20 }])).toBe(costUsd(100, 50, { inputPerMTok: 10, outputPerMTok: 20 }));
  });
});

describe('budgetRecord', () => {
  it('computes the burn rate to two decimals and warns at the threshold', () => {
    expect(budgetRecord('a', 3, 1, 80)).toMatchObject({ burnRatePercent: 33.33, status: 'HEALTHY', period: 'MONTHLY' });
    expect(budgetRecord('a', 100, 80, 80).status).toBe('WARNING_THRESHOLD_EXCEEDED');
    expect(budgetRecord('a', 100, 79.999, 80)).toMatchObject({ burnRatePercent: 80, status: 'WARNING_THRESHOLD_EXCEEDED' });
    expect(budgetRecord('a', 100, 79.99, 80)).toMatchObject({ burnRatePercent: 79.99, status: 'HEALTHY' });
  });

  it('treats an unallocated agent as 0 % until it spends, then 100 %', () => {
    expect(budgetRecord('a', 0, 0, 80)).toMatchObject({ burnRatePercent: 0, status: 'HEALTHY' });
    expect(budgetRecord('a', 0, 0.01, 80)).toMatchObject({ burnRatePercent: 100, status: 'WARNING_THRESHOLD_EXCEEDED' });
  });
});

describe('periods', () => {
  it('are UTC calendar months', () => {
    expect(periodOf(new Date('2026-11-30T23:59:59Z'))).toBe('2026-11');
    expect(periodOf(new Date('2026-12-01T00:00:00Z'))).toBe('2026-12');
    expect(periodBounds('2026-12')).toEqual({ start: new Date('2026-12-01T00:00:00Z'), end: new Date('2027-01-01T00:00:00Z') });
  });
});

describe('autoRoute', () => {
  it('sends short plain prompts to fast-track', () => {
    expect(autoRoute([user('Translate "hello" to French')]).tier).toBe('fast-track');
  });
  it('sends reasoning cues, tools and long prompts to deep-reasoning', () => {
    expect(autoRoute([user('Why did churn rise? Think step by step.')])).toMatchObject({ tier: 'deep-reasoning', reason: 'reasoning cue "Why"' });
    expect(autoRoute([user('hi')], [{ type: 'function', function: { name: 'x' } }]).tier).toBe('deep-reasoning');
    expect(autoRoute([user('word '.repeat(AUTO_ROUTE_PROMPT_TOKENS * 2))]).tier).toBe('deep-reasoning');
  });
});

describe('chatCacheKey', () => {
  const base = { model: 'fast-track', messages: [user('hi')], temperature: 0.7 };
  it('is equal for equal requests whatever the key order, and scoped per agent', () => {
    expect(chatCacheKey('a', base)).toBe(chatCacheKey('a', { temperature: 0.7, messages: [{ content: 'hi', role: 'user' as const }], model: 'fast-track' }));
    expect(chatCacheKey('a', base)).not.toBe(chatCacheKey('b', base));
  });
  it('changes with anything that changes the answer', () => {
    const key = chatCacheKey('a', base);
    expect(chatCacheKey('a', { ...base, temperature: 0.2 })).not.toBe(key);
    expect(chatCacheKey('a', { ...base, max_tokens: 5 })).not.toBe(key);
    expect(chatCacheKey('a', { ...base, messages: [user('hi!')] })).not.toBe(key);
    expect(chatCacheKey('a', { ...base, tools: [{ type: 'function', function: { name: 't' } }] })).not.toBe(key);
  });
  it("is the hash of the request's canonical JSON (the same keys as before its members were written in order)", () => {
    const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
    const message = fc.record({
      role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
      content: fc.oneof(fc.string(), fc.constant(null), fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }))),
      name: optional(fc.string()),
      tool_call_id: optional(fc.string()),
      tool_calls: optional(fc.array(fc.record({ id: fc.string(), type: fc.constant('function'), function: fc.record({ name: fc.string(), arguments: fc.string() }) }), { maxLength: 2 })),
    });
    const request = fc.record({
      model: fc.string(),
      messages: fc.array(message, { minLength: 1, maxLength: 4 }),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
      max_tokens: optional(fc.nat()),
      tools: optional(fc.array(fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.string(), parameters: optional(fc.jsonValue()) }) }), { maxLength: 2 })),
      tool_choice: optional(fc.oneof(fc.constant('auto'), fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.string() }) }))),
      stop: optional(fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }))),
      top_p: optional(fc.double({ min: 0, max: 1, noNaN: true })),
    });
    fc.assert(
      fc.property(request, (r) => {
        const generic = canonicalJson({
          model: r.model,
          messages: r.messages.map((m) => ({ role: m.role, content: m.content, name: m.name, tool_calls: m.tool_calls, tool_call_id: m.tool_call_id })),
          temperature: r.temperature,
          max_tokens: r.max_tokens,
          tools: r.tools,
          tool_choice: r.tool_choice,
          stop: r.stop,
          top_p: r.top_p,
        });
        expect(chatCacheKey('a', r as Parameters<typeof chatCacheKey>[1])).toBe(`llm:cache:a:${hash('sha256', generic, 'base64url')}`);
      }),
    );
  });
});

describe('canonicalJson', () => {
  /** The same value with every object's keys in reverse order. */
  const reordered = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(reordered) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)])) : value;
  it('is JSON of the same value, whatever the key order at any depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reordered(value))).toBe(text);
      }),
    );
  });
  it('sorts keys and leaves out undefined members, as JSON.stringify does', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, undefined, 'x'], c: undefined } })).toBe('{"a":{"d":[1,null,"x"]},"b":1}');
  });
});

describe('parseChatRequest', () => {
  it('applies the documented defaults', () => {
    expect(parseChatRequest({ model: 'fast-track', messages: [user('x')] })).toMatchObject({ temperature: 0.7, stream: false, include_usage: false, cacheBypass: false, piiStrict: false, max_tokens: undefined });
  });
  it('accepts max_completion_tokens as max_tokens, and the gateway options', () => {
    expect(parseChatRequest({ model: 'm', messages: [user('x')], max_completion_tokens: 12, svcllm_options: { cacheBypass: true, piiStrict: true } })).toMatchObject({ max_tokens: 12, cacheBypass: true, piiStrict: true });
  });
  it('names the parameter and value of every bad input', () => {
    expect(badRequest(() => parseChatRequest({ model: 'm', messages: [user('x')], temperature: 2.5 }))).toEqual({ param: 'temperature', message: expect.stringContaining('2.5') });
    expect(badRequest(() => parseChatRequest({ model: 'm', messages: [user('x')], temperature: -0.1 })).param).toBe('temperature');
    expect(badRequest(() => parseChatRequest({ messages: [user('x')] })).param).toBe('model');
    expect(badRequest(() => parseChatRequest({ model: 'm', messages: [] })).param).toBe('messages');
    expect(badRequest(() => parseChatRequest({ model: 'm', messages: [{ role: 'wizard', content: 'x' }] }))).toEqual({ param: 'messages[0].role', message: expect.stringContaining('"wizard"') });
    expect(badRequest(() => parseChatRequest({ model: 'm', messages: [user('x')], max_tokens: 0 })).param).toBe('max_tokens');
    expect(badRequest(() => parseChatRequest({ model: 'm', messages: [user('x')], stream: 'yes' })).param).toBe('stream');
    expect(badRequest(() => parseChatRequest({ model: 'm', messages: [user('x')], svcllm_options: { piiStrict: 'on' } })).param).toBe('svcllm_options.piiStrict');
    expect(badRequest(() => parseChatRequest({ model: 'm', messages: [{ role: 'tool', content: 'r' }] })).param).toBe('messages[0].tool_call_id');
  });
  it('validates embedding requests', () => {
    expect(parseEmbeddingRequest({ model: 'e', input: 'x' })).toEqual({ model: 'e', input: ['x'], encoding: 'float' });
    expect(parseEmbeddingRequest({ model: 'e', input: ['a', 'b'], encoding_format: 'base64' }).encoding).toBe('base64');
    expect(badRequest(() => parseEmbeddingRequest({ model: 'e', input: [1] })).param).toBe('input[0]');
  });
});

describe('resolveGatewayConfig', () => {
  const defaultPrice = { inputPerMTok: 5, outputPerMTok: 15 };
  it('runs on the local model when nothing is configured', () => {
    const config = resolveGatewayConfig({ defaultPrice, env: {} });
    expect(config.aliases).toEqual({ 'fast-track': [LOCAL_MODEL], 'deep-reasoning': [LOCAL_MODEL] });
  });
  it('routes every alias to LLM_BASE_URL + LLM_MODEL_NAME at the default price', () => {
    const config = resolveGatewayConfig({ llmBaseUrl: 'http://llm:8000/v1', llmModelName: 'qwen', llmApiKey: 'k', defaultPrice, env: {} });
    expect(config.aliases).toEqual({ 'fast-track': ['qwen'], 'deep-reasoning': ['qwen'] });
    expect(config.models.find((m) => m.name === 'qwen')).toMatchObject({ provider: 'upstream', price: defaultPrice });
    expect(config.providers.find((p) => p.name === 'upstream')).toMatchObject({ kind: 'openai-compatible', baseUrl: 'http://llm:8000/v1', apiKey: 'k' });
    expect(config.embeddingPassThrough).toBe('upstream');
  });
  it('reads a config file, takes keys from the environment and refuses bad references', () => {
    const file = {
      providers: [{ name: 'oa', kind: 'openai-compatible', baseUrl: 'https://api.example.com/v1', apiKeyEnv: 'OA_KEY' }],
      models: [{ name: 'small', provider: 'oa', inputPerMTok: 0.1, outputPerMTok: 0.4 }],
      aliases: { 'fast-track': ['small'], 'deep-reasoning': ['small'] },
    };
    const config = resolveGatewayConfig({ configText: JSON.stringify(file), defaultPrice, env: { OA_KEY: 'secret' } });
    expect(config.providers[0]).toMatchObject({ name: 'oa', apiKey: 'secret' });
    expect(config.models[0]).toMatchObject({ name: 'small', model: 'small', maxOutputTokens: 4096 });
    expect(() => resolveGatewayConfig({ configText: JSON.stringify(file), defaultPrice, env: {} })).toThrow(/OA_KEY/);
    expect(() => resolveGatewayConfig({ configText: JSON.stringify({ ...file, aliases: { 'fast-track': ['nope'], 'deep-reasoning': ['small'] } }), defaultPrice, env: { OA_KEY: 's' } })).toThrow(/unknown model nope/);
    expect(() => resolveGatewayConfig({ configText: JSON.stringify({ ...file, models: [{ name: 'x', provider: 'ghost', inputPerMTok: 1, outputPerMTok: 1 }] }), defaultPrice, env: { OA_KEY: 's' } })).toThrow(/unknown provider ghost/);
    expect(() => resolveGatewayConfig({ configText: JSON.stringify({ providers: [] }), defaultPrice, env: {} })).toThrow(/providers/);
  });
});
