import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit';
import { createPiiVault, createStreamUnmasker, maskPii, unmaskPii, type PiiVault } from './index.js';

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
    const rand = seededRandom(42);
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
