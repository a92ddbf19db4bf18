import { openAiErrors } from '@svc/kit';
import type { ChatCompletion, ChatMessage } from '../domain/openai-types.js';
import { maskMessages, PiiMaskingError, unmaskPii, type PiiVault } from '../domain/pii/index.js';

/** piiStrict around one chat completion: the prompt masked before it leaves (or not sent at all), the answer unmasked when it comes back. */
export function maskOrFail(messages: ChatMessage[], vault: PiiVault): ChatMessage[] {
  try {
    return maskMessages(messages, vault);
  } catch (error) {
    // Fail closed: nothing leaves the gateway unmasked.
    throw openAiErrors.invalidRequest(`piiStrict: the request could not be masked (${(error as Error).message}); it was not sent`, 'messages', error instanceof PiiMaskingError ? 'pii_masking_failed' : 'pii_masking_error', { cause: error });
  }
}

export function unmaskCompletion(completion: ChatCompletion, vault: PiiVault): ChatCompletion {
  return {
    ...completion,
    choices: completion.choices.map((c) => ({
      ...c,
      message: {
        ...c.message,
        content: c.message.content === null ? null : unmaskPii(c.message.content, vault),
        ...(c.message.tool_calls ? { tool_calls: c.message.tool_calls.map((t) => ({ ...t, function: { ...t.function, arguments: unmaskPii(t.function.arguments, vault) } })) } : {}),
      },
    })),
  };
}
