import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { growthRatio } from '../../test/growth-ratio.js';
import { contentFingerprint, VOLATILE_TEXT_CHARS } from './content-change.js';
import { CHRONO_WINDOW, maskVolatile, windowsOf } from './volatile-parts.js';
import { maskCounters } from './volatile-counters.js';

describe('volatile parts', () => {
  it('masks dates, times, relative dates, counters and copyright years, and leaves prices and prose counts', () => {
    expect(maskVolatile('Posted Dec. 7, 2026 at 10:15 pm · 1.2K views · © 2026 Harbour News', 'en')).toBe('posted <date> · <n> · <year> harbour news');
    expect(maskVolatile('Aktualisiert am 7. Dezember 2026, 10.15 Uhr · 1.234 Aufrufe', 'de')).toBe('aktualisiert <date> · <n>');
    expect(maskVolatile('Price €19.99, was €24.99; the factory employs 1,234 people', 'en')).toBe('price €19.99, was €24.99; the factory employs 1,234 people');
    expect(maskCounters('Views: 1,234 and Comments (12) and read by 1,234 people')).toBe('<n> and <n> and <n>');
  });

  it('keeps a word that a date is followed by, whatever letters it starts with', () => {
    expect(maskVolatile('Le 01/01/2026 à 13:00 pêcheurs et hôtel', 'fr')).toBe('le <date> pêcheurs et hôtel');
    expect(maskVolatile('Am 1. Januar 2026 hölzern', 'de')).toBe('<date> hölzern');
  });

  it('cuts text for chrono into windows of at most CHRONO_WINDOW characters, at spaces, losing nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '1', '.'), maxLength: 2_000 }), (text) => {
        const windows = windowsOf(text);
        expect(windows.join('')).toBe(text);
        for (const window of windows) expect(window.length).toBeLessThanOrEqual(CHRONO_WINDOW);
      }),
    );
  });

  // Each hostile text is read at two lengths; a rule that is worse than linear shows as a time
  // ratio near 64 for 8 times the text, a linear one near 8 (growthRatio; the bound, 32, leaves room for a loaded machine).
  const HOSTILE: Record<string, string> = {
    'relative times': '3 hours ',
    digits: '1 ',
    'full stops': '1.',
    'abbreviations': 'Dec. ',
    'thousands separators': '1 234 ',
    'counters': 'Views: 1 ',
    'dates': '7 Dec 2026 ',
    'one long word': 'a',
    'everything at once': 'Posted Dec. 7, 2026 at 10:15 pm · 1.2K views · ',
  };
  it.each(Object.entries(HOSTILE))('reads %s in time linear in the text', (_name, unit) => {
    const text = (n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
    expect(growthRatio((t) => contentFingerprint(t, 'en'), text(VOLATILE_TEXT_CHARS / 64), text(VOLATILE_TEXT_CHARS / 8))).toBeLessThan(32);
  }, 60_000);

  it('reads only the first VOLATILE_TEXT_CHARS characters with the volatile rules', () => {
    const head = 'Harbour news. '.repeat(VOLATILE_TEXT_CHARS / 10);
    expect(contentFingerprint(`${head} Posted Dec. 8, 2026.`)).not.toBe(contentFingerprint(`${head} Posted Dec. 7, 2026.`));
    expect(contentFingerprint(`Posted Dec. 8, 2026. ${head}`)).toBe(contentFingerprint(`Posted Dec. 7, 2026. ${head}`));
  });
});
