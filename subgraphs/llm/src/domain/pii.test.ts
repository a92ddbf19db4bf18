import { describe, expect, it } from '@jest/globals';
import type { ChatMessage } from './openai-types.js';
import { createPiiVault, createStreamUnmasker, maskMessages, maskPii, PiiMaskingError, unmaskPii, type PiiKind, type PiiVault } from './pii.js';

/** Deterministic PRNG (mulberry32) for the property-style loops. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)];

/** Masks `Contact <value> today.` with a fresh vault. */
function maskInSentence(value: string): string {
  return maskPii(`Contact ${value} today.`, createPiiVault());
}

function expectMaskedAs(value: string, kind: PiiKind): void {
  const vault = createPiiVault();
  const text = `Contact ${value} today.`;
  const masked = maskPii(text, vault);
  expect(masked).toBe(`Contact [${kind}_1] today.`);
  expect(vault.entries()).toEqual([[`[${kind}_1]`, value]]);
  expect(unmaskPii(masked, vault)).toBe(text);
}

function expectUntouched(text: string): void {
  const vault = createPiiVault();
  expect(maskPii(text, vault)).toBe(text);
  expect(vault.size).toBe(0);
}

function thrown(fn: () => unknown): PiiMaskingError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(PiiMaskingError);
  return caught as PiiMaskingError;
}

describe('maskPii: e-mail addresses', () => {
  it.each(['john.doe+tag@example.co.uk', "o'brien@mail.example.ie", 'a@b.io', 'first_last-99@sub.domain-name.org', 'jürgen@bücher.de', 'x@xn--bcher-kva.de'])(
    'masks %s',
    (value) => expectMaskedAs(value, 'EMAIL'),
  );

  it('masks addresses in angle brackets, markdown code and at the end of a sentence without taking the punctuation', () => {
    const vault = createPiiVault();
    expect(maskPii('<ann@example.com>, `bob@example.com`, "carl@example.com". Mail dora@example.com.', vault)).toBe(
      '<[EMAIL_1]>, `[EMAIL_2]`, "[EMAIL_3]". Mail [EMAIL_4].',
    );
  });

  it.each(['john@localhost', 'half an address a@b', '@handle', 'user@.com', 'user@example.c', 'two@@example.com'])('does not mask %s', (text) =>
    expectUntouched(text),
  );
});

describe('maskPii: IBANs (mod-97 checked)', () => {
  it.each([
    'DE89 3704 0044 0532 0130 00',
    'DE89370400440532013000',
    'GB82 WEST 1234 5698 7654 32',
    'FR14 2004 1010 0505 0001 3M02 606',
    'NL91ABNA0417164300',
    'ES91 2100 0418 4502 0005 1332',
    'IT60X0542811101000000123456',
    'CH93 0076 2011 6238 5295 7',
    'AT61 1904 3002 3457 3201',
    'BE68 5390 0754 7034',
    'de89 3704 0044 0532 0130 00',
  ])('masks %s', (value) => expectMaskedAs(value, 'IBAN'));

  it('does not mask an IBAN with wrong check digits', () => {
    expectUntouched('IBAN DE88 3704 0044 0532 0130 00 please');
    expectUntouched('IBAN GB83WEST12345698765432 please');
  });

  it('does not mask a valid checksum with the wrong length for its country, or a fragment', () => {
    expectUntouched('DE89 3704');
    // NL IBANs have 18 characters; this one is padded with a group and fails mod-97 as well.
    expectUntouched('NL91 ABNA 0417 1643 0012 34');
  });

  it('stops at the end of the IBAN when more groups follow', () => {
    expect(maskInSentence('DE89 3704 0044 0532 0130 00 ABCD')).toBe('Contact [IBAN_1] ABCD today.');
  });
});

describe('maskPii: card numbers (Luhn checked)', () => {
  it.each(['4111 1111 1111 1111', '4111-1111-1111-1111', '4111111111111111', '5500 0000 0000 0004', '3782 822463 10005', '378282246310005', '6011111111111117'])(
    'masks %s',
    (value) => expectMaskedAs(value, 'CARD'),
  );

  it('does not mask 16-digit numbers that fail the Luhn check (nor as phone numbers)', () => {
    expectUntouched('Card 4111 1111 1111 1112 expired');
    expectUntouched('Card 4111111111111112 expired');
    expectUntouched('Ref 1234-5678-9012-3456');
  });

  it('does not accept mixed separators or odd groupings', () => {
    expectUntouched('4111 1111-1111 1111');
    expectUntouched('41 1111 1111 1111 11');
  });

  it('finds the card in a longer run of numbers', () => {
    expect(maskInSentence('qty 2 4111 1111 1111 1111')).toBe('Contact qty 2 [CARD_1] today.');
  });
});

describe('maskPii: IP addresses', () => {
  it.each(['192.168.0.1', '10.0.0.255', '255.255.255.255', '0.0.0.0', '2001:db8::1', '::1', 'fe80::1ff:fe23:4567:890a', '2001:0db8:85a3:0000:0000:8a2e:0370:7334', '::ffff:192.0.2.128'])(
    'masks %s',
    (value) => expectMaskedAs(value, 'IP'),
  );

  it('masks the address and keeps ports, prefixes and sentence punctuation', () => {
    const vault = createPiiVault();
    expect(maskPii('Hosts 10.0.0.1:8080, 192.168.0.0/16 and [2001:db8::2]:443. Loopback ::1.', vault)).toBe(
      'Hosts [IP_1]:8080, [IP_2]/16 and [[IP_3]]:443. Loopback [IP_4].',
    );
  });

  it.each(['999.1.1.1', 'version 1.2.3', '1.2.3.4.5', 'v1.2.3.4', '256.1.1.1', 'at 12:30:45', 'std::vector<int>', 'a :: b', 'dead::beef', 'MAC 00:1a:2b:3c:4d:5e', '1:2:3:4:5:6:7:8:9'])(
    'does not mask %s',
    (text) => expectUntouched(text),
  );
});

describe('maskPii: national ids', () => {
  it.each(['536-22-8741', '536 22 8741'])('masks the US SSN %s', (value) => expectMaskedAs(value, 'NATIONAL_ID'));

  it.each(['000-12-3456', '666-12-3456', '912-34-5678', '123-00-4567', '123-45-0000'])('does not mask the invalid SSN %s as an id', (value) => {
    expect(maskInSentence(value)).not.toContain('NATIONAL_ID');
  });

  it('leaves an SSN-shaped number with area 000 alone altogether', () => {
    expectUntouched('SSN 000-12-3456');
  });

  it.each(['AB 12 34 56 C', 'AB123456D', 'JG 10 37 59 A'])('masks the UK National Insurance number %s', (value) => expectMaskedAs(value, 'NATIONAL_ID'));

  it.each(['BG 12 34 56 A', 'QQ123456C', 'AB123456E', 'DA123456A', 'AO123456A'])('does not mask the invalid NI number %s', (value) => expectUntouched(`NI ${value}`));

  it('masks a Korean resident registration number and rejects impossible dates', () => {
    expectMaskedAs('900101-1234567', 'NATIONAL_ID');
    expect(maskInSentence('901301-1234567')).not.toContain('NATIONAL_ID');
    expect(maskInSentence('900132-1234567')).not.toContain('NATIONAL_ID');
  });

  it('masks a French NIR with a valid key only', () => {
    expectMaskedAs('1 85 05 78 006 084 91', 'NATIONAL_ID');
    expectMaskedAs('185057800608491', 'NATIONAL_ID');
    expectMaskedAs('2 69 02 99 341 732 85', 'NATIONAL_ID');
    expect(maskInSentence('1 85 05 78 006 084 92')).not.toContain('NATIONAL_ID');
  });
});

describe('maskPii: phone numbers', () => {
  it.each([
    '+49 30 1234567',
    '+49 (0)30 1234567',
    '+1 (555) 123-4567',
    '+1-555-123-4567',
    '+44 20 7946 0958',
    '+33 1 23 45 67 89',
    '+4930123456',
    '(555) 123-4567',
    '555-123-4567',
    '555.123.4567',
    '555 123 4567',
    '555-1234',
    '1 800 555 1234',
    '030 1234567',
    '0171-2345678',
    '01.23.45.67.89',
    '01711234567',
    '0049 30 1234567',
    '612 345 678',
  ])('masks %s', (value) => expectMaskedAs(value, 'PHONE'));

  it('masks a digit run without separators when a phone word precedes it', () => {
    expect(maskPii('Tel: 5551234567', createPiiVault())).toBe('Tel: [PHONE_1]');
    expect(maskPii('call me on 5551234567', createPiiVault())).toBe('call me on [PHONE_1]');
    expect(maskPii('Handy 1512345678', createPiiVault())).toBe('Handy [PHONE_1]');
  });

  it.each([
    'In 2026 we grew.',
    'Order 12345 shipped.',
    'order #12345678 shipped',
    'Invoice no. 555-123-4567',
    'Due 2026-11-21.',
    'At 2026-11-21T10:30:45Z it began.',
    'At 2026-11-21 10:30:45.123+01:00 it began.',
    'on 21.11.2026 and 11/21/2026 and 2026/11/21',
    'version 1.2.3 and v10.15.7',
    'Chrome 120.0.6099.109',
    'at 12:30:45',
    'from 1990-2020',
    'pages 1200-1450',
    'a population of 12 345 678',
    'EUR 1.234.567,89',
    '$1,234,567.89',
    'timestamp 1732185600',
    'pi is 3.14159265358979',
    'on 2026-11-21 12 people came',
    'not an IP 999.100.100.100',
    'coordinates 48.8566, 2.3522',
  ])('does not mask: %s', (text) => expectUntouched(text));

  it('separates a phone number from a date right before it', () => {
    expect(maskPii('2026-11-21 555-123-4567', createPiiVault())).toBe('2026-11-21 [PHONE_1]');
  });

  it('reads a phone word from the JSON key of a tool argument (see maskMessages)', () => {
    const [message] = maskMessages([{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'sms', arguments: '{"phone":"5551234567"}' } }] }], createPiiVault());
    expect(message.tool_calls?.[0].function.arguments).toBe('{"phone":"[PHONE_1]"}');
  });
});

describe('maskPii: detection order', () => {
  it('masks cards, IBANs and national ids before phone numbers, and never twice', () => {
    const vault = createPiiVault();
    const text = 'Card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, SSN 536-22-8741, RRN 900101-1234567, phone +49 30 1234567, host 10.1.2.3, mail a@b.io';
    expect(maskPii(text, vault)).toBe(
      'Card [CARD_1], IBAN [IBAN_1], SSN [NATIONAL_ID_1], RRN [NATIONAL_ID_2], phone [PHONE_1], host [IP_1], mail [EMAIL_1]',
    );
    expect(vault.size).toBe(7);
  });

  it('keeps digits inside an e-mail address in the e-mail placeholder', () => {
    expect(maskInSentence('john.5551234567@example.com')).toBe('Contact [EMAIL_1] today.');
  });
});

describe('PiiVault and placeholders', () => {
  it('gives the same value the same placeholder, within a text and across texts', () => {
    const vault = createPiiVault();
    expect(maskPii('a@b.io wrote to c@d.io and a@b.io', vault)).toBe('[EMAIL_1] wrote to [EMAIL_2] and [EMAIL_1]');
    expect(maskPii('cc c@d.io', vault)).toBe('cc [EMAIL_2]');
    expect(vault.size).toBe(2);
  });

  it('counts per kind', () => {
    const vault = createPiiVault();
    expect(maskPii('a@b.io 10.0.0.1 c@d.io 10.0.0.2 4111111111111111', vault)).toBe('[EMAIL_1] [IP_1] [EMAIL_2] [IP_2] [CARD_1]');
    expect(vault.entries()).toEqual([
      ['[EMAIL_1]', 'a@b.io'],
      ['[IP_1]', '10.0.0.1'],
      ['[EMAIL_2]', 'c@d.io'],
      ['[IP_2]', '10.0.0.2'],
      ['[CARD_1]', '4111111111111111'],
    ]);
  });

  it('keeps vaults apart', () => {
    const one = createPiiVault();
    const two = createPiiVault();
    maskPii('a@b.io', one);
    expect(maskPii('c@d.io', two)).toBe('[EMAIL_1]');
    expect(unmaskPii('[EMAIL_1]', one)).toBe('a@b.io');
    expect(unmaskPii('[EMAIL_1]', two)).toBe('c@d.io');
  });

  it('returns a copy from entries()', () => {
    const vault = createPiiVault();
    maskPii('a@b.io', vault);
    vault.entries().pop();
    expect(vault.size).toBe(1);
  });

  it('refuses vaults it did not make and non-string input (fail closed)', () => {
    const fake: PiiVault = { size: 0, entries: () => [] };
    thrown(() => maskPii('a@b.io', fake));
    thrown(() => unmaskPii('[EMAIL_1]', fake));
    thrown(() => createStreamUnmasker(fake));
    thrown(() => maskMessages([{ content: 'x' }], fake));
    thrown(() => maskPii(42 as unknown as string, createPiiVault()));
  });

  it('does not issue a placeholder the user wrote literally', () => {
    const vault = createPiiVault();
    const text = 'I literally typed [EMAIL_1] and [EMAIL_2]; my mail is a@b.io';
    const masked = maskPii(text, vault);
    expect(masked).toBe('I literally typed [EMAIL_1] and [EMAIL_2]; my mail is [EMAIL_3]');
    expect(unmaskPii(masked, vault)).toBe(text);
    expect(unmaskPii('Your mail is [EMAIL_3], you typed [EMAIL_1]', vault)).toBe('Your mail is a@b.io, you typed [EMAIL_1]');
  });

  it('masks a literal copy of an already issued placeholder so that it round-trips', () => {
    const vault = createPiiVault();
    const first = 'mail a@b.io';
    const second = 'What does [EMAIL_1] mean? Also [EMAIL_1] and a@b.io';
    const m1 = maskPii(first, vault);
    const m2 = maskPii(second, vault);
    expect(m1).toBe('mail [EMAIL_1]');
    expect(m2).toBe('What does [EMAIL_2] mean? Also [EMAIL_2] and [EMAIL_1]');
    expect(unmaskPii(m1, vault)).toBe(first);
    expect(unmaskPii(m2, vault)).toBe(second);
  });

  it('round-trips random texts full of personal data and placeholder-like strings (seeded)', () => {
    const rand = prng(20261121);
    const fragments = [
      'a@b.io',
      'john.doe@example.com',
      '4111 1111 1111 1111',
      '5500000000000004',
      'DE89 3704 0044 0532 0130 00',
      'GB82WEST12345698765432',
      '+49 30 1234567',
      '(555) 123-4567',
      '536-22-8741',
      'AB 12 34 56 C',
      '900101-1234567',
      '192.168.0.1',
      '2001:db8::1',
      '[EMAIL_1]',
      '[EMAIL_2]',
      '[PHONE_1]',
      '[CARD_12]',
      '[IP_',
      '_1]',
      '[NATIONAL_ID_3]',
      '[EMAIL_1',
      '[',
      ']',
      '[[',
      ' ',
      '\n',
      '2026-11-21',
      'Order 12345',
      'x',
      '7',
      '-',
      '.',
      '@',
      ':',
      'ü',
      '😀',
      '\0',
    ];
    const vault = createPiiVault();
    for (let round = 0; round < 400; round++) {
      const parts: string[] = [];
      const count = 1 + Math.floor(rand() * 14);
      for (let k = 0; k < count; k++) parts.push(pick(rand, fragments));
      const text = parts.join(rand() < 0.5 ? ' ' : '');
      const masked = maskPii(text, vault);
      expect(unmaskPii(masked, vault)).toBe(text);
      // Also with a fresh vault each time.
      const fresh = createPiiVault();
      expect(unmaskPii(maskPii(text, fresh), fresh)).toBe(text);
    }
    expect(vault.size).toBeGreaterThan(10);
  });

  it('leaves no detected value in the masked text', () => {
    const vault = createPiiVault();
    const values = ['a@b.io', '4111 1111 1111 1111', 'DE89 3704 0044 0532 0130 00', '+49 30 1234567', '536-22-8741', '192.168.0.1'];
    const masked = maskPii(values.join(' / '), vault);
    for (const value of values) expect(masked).not.toContain(value);
  });
});

describe('unmaskPii', () => {
  it('restores known placeholders and leaves unknown bracketed text', () => {
    const vault = createPiiVault();
    maskPii('a@b.io and 10.0.0.1', vault);
    expect(unmaskPii('To [EMAIL_1] from [IP_1]; [EMAIL_9], [email_1], [EMAIL 1], [NOTE_1] stay.', vault)).toBe(
      'To a@b.io from 10.0.0.1; [EMAIL_9], [email_1], [EMAIL 1], [NOTE_1] stay.',
    );
  });

  it('does not unmask restored text again', () => {
    const vault = createPiiVault();
    maskPii('a@b.io', vault);
    maskPii('literal [EMAIL_1]', vault); // [EMAIL_2] -> "[EMAIL_1]"
    expect(unmaskPii('[EMAIL_2]', vault)).toBe('[EMAIL_1]');
  });

  it('returns text unchanged for an empty vault', () => {
    expect(unmaskPii('[EMAIL_1] x', createPiiVault())).toBe('[EMAIL_1] x');
  });
});

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

describe('createStreamUnmasker', () => {
  function vaultWith(text: string): { vault: PiiVault; masked: string } {
    const vault = createPiiVault();
    return { vault, masked: maskPii(text, vault) };
  }

  const original = 'Contact a@b.io or john.doe@example.com, card 4111 1111 1111 1111, IBAN DE89370400440532013000, [EMAIL_9] [ok] [IP_1 x, host 10.0.0.1 ok [';

  /** Where the unmasker may cut `buffer`: before the last `[` while that tail is a proper prefix of a known placeholder. */
  function expectedCut(buffer: string, vault: PiiVault): number {
    const open = buffer.lastIndexOf('[');
    if (open < 0) return buffer.length;
    const tail = buffer.slice(open);
    return vault.entries().some(([p]) => p.length > tail.length && p.startsWith(tail)) ? open : buffer.length;
  }

  function runStream(pieces: string[], vault: PiiVault): string {
    const unmasker = createStreamUnmasker(vault);
    const longest = Math.max(...vault.entries().map(([p]) => p.length));
    let input = '';
    let output = '';
    for (const piece of pieces) {
      output += unmasker.push(piece);
      input += piece;
      const cut = expectedCut(input, vault);
      expect(input.length - cut).toBeLessThan(longest);
      expect(output).toBe(unmaskPii(input.slice(0, cut), vault));
    }
    return output + unmasker.flush();
  }

  it('restores a placeholder split across deltas', () => {
    const vault = createPiiVault();
    expect(maskPii('Contact a@b.io now', vault)).toBe('Contact [EMAIL_1] now');
    const unmasker = createStreamUnmasker(vault);
    expect(unmasker.push('Contact [EMA')).toBe('Contact ');
    expect(unmasker.push('IL_1] now')).toBe('a@b.io now');
    expect(unmasker.flush()).toBe('');
  });

  it('holds back only what can still become a known placeholder', () => {
    const vault = createPiiVault();
    maskPii('a@b.io', vault);
    const unmasker = createStreamUnmasker(vault);
    expect(unmasker.push('see [note] and [')).toBe('see [note] and ');
    expect(unmasker.push('x')).toBe('[x');
    expect(unmasker.push(' [EMAIL_')).toBe(' ');
    expect(unmasker.push('2')).toBe('[EMAIL_2');
    expect(unmasker.push('] [EMAIL_1')).toBe('] ');
    expect(unmasker.push(']')).toBe('a@b.io');
    expect(unmasker.push('[EMAIL_1] [EMA')).toBe('a@b.io ');
    expect(unmasker.flush()).toBe('[EMA');
    expect(unmasker.push('done')).toBe('done');
  });

  it('never holds anything back for an empty vault', () => {
    const unmasker = createStreamUnmasker(createPiiVault());
    expect(unmasker.push('[EMA')).toBe('[EMA');
    expect(unmasker.flush()).toBe('');
  });

  it('equals unmaskPii of the whole text for every split point', () => {
    const { vault, masked } = vaultWith(original);
    expect(vault.size).toBe(5);
    const whole = unmaskPii(masked, vault);
    expect(whole).toBe(original);
    for (let i = 0; i <= masked.length; i++) {
      expect(runStream([masked.slice(0, i), masked.slice(i)], vault)).toBe(whole);
    }
  });

  it('equals unmaskPii of the whole text for random multi-splits (seeded)', () => {
    const { vault, masked } = vaultWith(original);
    const whole = unmaskPii(masked, vault);
    const rand = prng(42);
    for (let round = 0; round < 300; round++) {
      const pieces: string[] = [];
      let pos = 0;
      while (pos < masked.length) {
        const size = rand() < 0.2 ? 0 : 1 + Math.floor(rand() * 12);
        pieces.push(masked.slice(pos, pos + size));
        pos += size;
      }
      expect(runStream(pieces, vault)).toBe(whole);
    }
  });

  it('streams character by character, including model text around placeholders', () => {
    const { vault } = vaultWith(original);
    const answer = 'Sure: [EMAIL_1][EMAIL_2][CARD_1] then [IBAN_1]. [EMAIL_12] [[IP_1]] [IP_1';
    expect(runStream([...answer], vault)).toBe(unmaskPii(answer, vault));
  });
});
