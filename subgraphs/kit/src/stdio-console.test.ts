import { describe, expect, it, jest } from '@jest/globals';
import type { Logger } from './logger.js';
import { consoleOffStdout } from './stdio-console.js';

describe('consoleOffStdout', () => {
  it('turns console output into log entries and writes nothing to stdout; the undo restores console', () => {
    const entries: [string, unknown, string][] = [];
    const log = Object.fromEntries(['debug', 'info', 'warn'].map((level) => [level, (fields: unknown, message: string) => entries.push([level, fields, message])])) as unknown as Logger;
    const originalLog = console.log;
    const written = { stdout: [] as string[], stderr: [] as string[] };
    // Recorded by hand: mockRestore() forgets the calls.
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => Boolean(written.stdout.push(String(chunk))));
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => Boolean(written.stderr.push(String(chunk))));
    const restore = consoleOffStdout(log);
    try {
      console.log('rows: %d', 3);
      console.error(new Error('broken stylesheet'));
      console.debug('detail');
      console.count('ticks');
      expect(console.log).not.toBe(originalLog);
    } finally {
      restore();
      stdout.mockRestore();
      stderr.mockRestore();
    }
    expect(written).toEqual({ stdout: [], stderr: ['ticks: 1\n'] });
    expect(entries.map(([level, fields]) => [level, fields])).toEqual([['info', { console: 'log' }], ['warn', { console: 'error' }], ['debug', { console: 'debug' }]]);
    expect(entries[0]![2]).toBe('rows: 3');
    expect(entries[1]![2]).toContain('Error: broken stylesheet');
    expect(console.log).toBe(originalLog);
  });
});
