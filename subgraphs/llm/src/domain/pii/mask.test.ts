import { describe, expect, it } from '@jest/globals';
import type { ChatMessage } from '../openai-types.js';
import { createPiiVault, maskMessages } from './index.js';
import { thrown } from './test-support.js';

describe('maskMessages', () => {
  it('masks string content and text parts, and returns new objects', () => {
    const vault = createPiiVault();
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'My mail is a@b.io', name: 'ann' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Card 4111 1111 1111 1111' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'text', text: 'and a@b.io again', cache_control: { type: 'ephemeral' } },
        ],
      },
    ];
    const snapshot = structuredClone(messages);
    const masked = maskMessages(messages, vault);
    expect(masked).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'My mail is [EMAIL_1]', name: 'ann' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Card [CARD_1]' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'text', text: 'and [EMAIL_1] again', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
    expect(messages).toEqual(snapshot);
    expect(masked[1]).not.toBe(messages[1]);
  });

  it('masks tool call arguments inside JSON strings, decoding escapes first, and keeps the JSON valid', () => {
    const vault = createPiiVault();
    const args = JSON.stringify({ to: 'Line one\nbob@example.com', note: 'call\t+49 30 1234567', card: 4111111111111111, n: 3, ok: true });
    const [message] = maskMessages(
      [{ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'send', arguments: args } }] }],
      vault,
    );
    expect(message.content).toBeNull();
    const masked = message.tool_calls?.[0].function.arguments ?? '';
    expect(JSON.parse(masked)).toEqual({ to: 'Line one\n[EMAIL_1]', note: 'call\t[PHONE_1]', card: '[CARD_1]', n: 3, ok: true });
    expect(message.tool_calls?.[0]).toMatchObject({ id: 'call_1', type: 'function', function: { name: 'send' } });
  });

  it('masks arguments that are not valid JSON as plain text', () => {
    const [message] = maskMessages([{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"to": "a@b.io"' } }] }], createPiiVault());
    expect(message.tool_calls?.[0].function.arguments).toBe('{"to": "[EMAIL_1]"');
  });

  it('masks refusal parts and tool results', () => {
    const vault = createPiiVault();
    const masked = maskMessages(
      [
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'I will not mail a@b.io' }] },
        { role: 'tool', tool_call_id: 'c', content: 'sent to 10.0.0.1' },
      ],
      vault,
    );
    expect(masked).toEqual([
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'I will not mail [EMAIL_1]' }] },
      { role: 'tool', tool_call_id: 'c', content: 'sent to [IP_1]' },
    ]);
  });

  it('accepts messages without content', () => {
    expect(maskMessages([{ role: 'assistant', tool_calls: [] } as unknown as ChatMessage], createPiiVault())).toEqual([{ role: 'assistant', tool_calls: [] }]);
  });

  it.each<[string, unknown]>([
    ['content is a number', [{ role: 'user', content: 42 }]],
    ['content is a plain object', [{ role: 'user', content: { text: 'a@b.io' } }]],
    ['content is a boolean', [{ role: 'user', content: true }]],
    ['a part has an unknown type', [{ role: 'user', content: [{ type: 'document', data: 'a@b.io' }] }]],
    ['a part has no type', [{ role: 'user', content: [{ text: 'a@b.io' }] }]],
    ['a text part has no string text', [{ role: 'user', content: [{ type: 'text', text: ['a@b.io'] }] }]],
    ['a part is a string', [{ role: 'user', content: ['a@b.io'] }]],
    ['a part is null', [{ role: 'user', content: [null] }]],
    ['a message is not an object', ['a@b.io']],
    ['messages is not an array', { role: 'user', content: 'a@b.io' }],
    ['tool_calls is not an array', [{ role: 'assistant', content: null, tool_calls: { function: { arguments: '{}' } } }]],
    ['a tool call has no function', [{ role: 'assistant', content: null, tool_calls: [{ id: 'c' }] }]],
    ['tool call arguments are not a string', [{ role: 'assistant', content: null, tool_calls: [{ function: { name: 'f', arguments: { to: 'a@b.io' } } }] }]],
  ])('throws PiiMaskingError when %s', (_label, messages) => {
    const error = thrown(() => maskMessages(messages as ChatMessage[], createPiiVault()));
    expect(error.name).toBe('PiiMaskingError');
    expect(error.message).not.toContain('a@b.io');
  });
});
