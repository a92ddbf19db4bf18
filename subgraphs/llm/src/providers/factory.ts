import type { ProviderSpec } from '../domain/gateway-config.js';
import type { Provider } from '../domain/openai-types.js';
import { createAnthropicProvider } from './anthropic.js';
import { createLocalProvider } from './local.js';
import { createOpenAiCompatibleProvider } from './openai-compatible.js';

export function createProvider(spec: ProviderSpec, timeoutMs: number): Provider {
  switch (spec.kind) {
    case 'openai-compatible':
      return createOpenAiCompatibleProvider({ baseUrl: spec.baseUrl!, apiKey: spec.apiKey, timeoutMs });
    case 'anthropic':
      return createAnthropicProvider({ baseUrl: spec.baseUrl ?? 'https://api.anthropic.com', apiKey: spec.apiKey ?? '', timeoutMs });
    case 'local':
      return createLocalProvider();
  }
}
