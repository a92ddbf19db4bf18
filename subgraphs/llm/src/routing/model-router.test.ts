import { describe, expect, it } from '@jest/globals';
import { SvcError } from '@svc/kit';
import type { GatewayConfig } from '../domain/gateway-config.js';
import { UpstreamError, type ChatCompletion, type Provider } from '../domain/openai-types.js';
import { createModelRouter } from './model-router.js';

const price = { inputPerMTok: 1, outputPerMTok: 1 };
const config: GatewayConfig = {
  providers: [{ name: 'p1', kind: 'local' }, { name: 'p2', kind: 'local' }],
  models: [
    { name: 'a', provider: 'p1', model: 'a-upstream', price, maxOutputTokens: 100, supportsTools: true },
    { name: 'b', provider: 'p2', model: 'b-upstream', price, maxOutputTokens: 100, supportsTools: true },
  ],
  embeddings: [],
  aliases: { 'fast-track': ['a', 'b'], 'deep-reasoning': ['b'] },
  defaultPrice: price,
  cooldownMs: 1000,
  timeoutMs: 1000,
};
const provider = {} as Provider;

describe('model router', () => {
  it('resolves aliases, auto-route and model names; refuses unknown names with 404', () => {
    const router = createModelRouter(config, () => provider);
    expect(router.routeChat('fast-track', []).targets.map((d) => d.name)).toEqual(['a', 'b']);
    expect(router.routeChat('auto-route', [{ role: 'user', content: 'why?' }])).toMatchObject({ reason: expect.stringContaining('why'), targets: [{ name: 'b' }] });
    expect(router.routeChat('b', []).targets.map((d) => d.model)).toEqual(['b-upstream']);
    expect(() => router.routeChat('gpt-9', [])).toThrow(SvcError);
  });

  it('falls back on retryable errors, cools the failed deployment down, and stops at non-retryable ones', async () => {
    let now = 0;
    const router = createModelRouter(config, () => provider, () => now);
    const targets = router.routeChat('fast-track', []).targets;
    const tried: string[] = [];
    const answer = { id: 'x' } as ChatCompletion;
    const first = await router.withFallback(targets, async (d) => {
      tried.push(d.name);
      if (d.name === 'a') throw new UpstreamError('boom', 500, true);
      return answer;
    });
    expect(first.deployment.name).toBe('b');
    expect(tried).toEqual(['a', 'b']);
    tried.length = 0;
    await router.withFallback(targets, async (d) => (tried.push(d.name), answer));
    expect(tried).toEqual(['b']);
    now = 1001;
    tried.length = 0;
    await router.withFallback(targets, async (d) => (tried.push(d.name), answer));
    expect(tried).toEqual(['a']);
    await expect(router.withFallback(targets, async () => { throw new UpstreamError('bad request', 400, false); })).rejects.toMatchObject({ status: 400 });
  });

  it('tries cooling deployments anyway when nothing else is left', async () => {
    const router = createModelRouter(config, () => provider, () => 0);
    const targets = router.routeChat('deep-reasoning', []).targets;
    await expect(router.withFallback(targets, async () => { throw new UpstreamError('down', 503, true); })).rejects.toBeInstanceOf(UpstreamError);
    const again = await router.withFallback(targets, async () => 'ok');
    expect(again.result).toBe('ok');
  });
});
