import { describe, expect, it } from '@jest/globals';
import { IMAGE_HIGH_TOKENS, IMAGE_LOW_TOKENS, promptTokenBound, UNKNOWN_PART_TOKENS } from './prompt-bound.js';
import { trustedUsage } from './usage.js';

describe('the prompt bound a reservation holds', () => {
  // 3 for the reply, 4 + 2 (no tool calls, as JSON) per message.
  it('counts text by UTF-8 bytes with framing', () => {
    expect(promptTokenBound([{ role: 'user', content: 'héllo' }], undefined)).toBe(3 + 6 + 6);
  });

  it('counts every image by its detail at the costliest rate, not as zero', () => {
    const image = (detail?: string) => ({ type: 'image_url', image_url: { url: 'https://example.com/a.png', ...(detail ? { detail } : {}) } });
    const text = promptTokenBound([{ role: 'user', content: [{ type: 'text', text: 'what is this?' }] }], undefined);
    const withImages = promptTokenBound([{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, image('low'), image('high'), image()] }], undefined);
    expect(withImages - text).toBe(IMAGE_LOW_TOKENS + 2 * IMAGE_HIGH_TOKENS);
  });

  it('counts audio by its size and unknown parts at the ceiling', () => {
    const audio = { type: 'input_audio', input_audio: { data: Buffer.alloc(100_000).toString('base64'), format: 'wav' } };
    expect(promptTokenBound([{ role: 'user', content: [audio] }], undefined)).toBe(3 + 6 + 1001);
    expect(promptTokenBound([{ role: 'user', content: [{ type: 'file', file: { file_id: 'f' } }] }], undefined)).toBe(3 + 6 + UNKNOWN_PART_TOKENS);
  });
});

describe('upstream usage', () => {
  it('is trusted only as whole, non-negative counts', () => {
    expect(trustedUsage({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 1 })).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    for (const bad of [{ prompt_tokens: -1, completion_tokens: 5 }, { prompt_tokens: 1.5, completion_tokens: 5 }, { prompt_tokens: 10 }, null, undefined, { prompt_tokens: Number.NaN, completion_tokens: 1 }]) {
      expect(trustedUsage(bad as never)).toBeUndefined();
    }
  });
});
