import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit';
import { createPiiVault, createStreamUnmasker, maskMessages, maskPii, unmaskPii, type PiiVault } from './index.js';
import { thrown } from './test-support.js';

const pick = <T>(rand: () => number, items: readonly T[]): T => items[Math.floor(rand() * items.length)];

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
    const rand = seededRandom(20261121);
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
