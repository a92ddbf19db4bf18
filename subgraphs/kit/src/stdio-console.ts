import { Console } from 'node:console';
import { format } from 'node:util';
import type { Logger } from './logger.js';

/**
 * For processes whose stdout carries a protocol (the stdio MCP servers): one stray line there
 * breaks the client's parser, and libraries print through the global `console` (jsdom
 * reporting a page's unparsable CSS, WebAssembly modules, ...).
 *
 * `consoleOffStdout(log)` rebinds every console method away from stdout: log, info, debug,
 * trace, dir, table, warn and error become entries of `log` (error at warn level: it is a
 * library talking, not the process failing), cut to 4000 characters; the others (group,
 * count, time, assert, ...) write to stderr as text. It returns the undo, which puts the
 * original methods back.
 */

type ConsoleMethods = Record<string, unknown>;

/** Console methods that become log entries (at this level); the others go to stderr as text. */
const CONSOLE_LEVELS: Record<string, 'debug' | 'info' | 'warn'> = { debug: 'debug', trace: 'debug', log: 'info', info: 'info', dir: 'info', table: 'info', warn: 'warn', error: 'warn' };

/** Points every console method away from stdout (into the logger where it maps); returns the undo. */
export function consoleOffStdout(log: Logger): () => void {
  const target = console as unknown as ConsoleMethods;
  const stderrConsole = new Console({ stdout: process.stderr, stderr: process.stderr }) as unknown as ConsoleMethods;
  const saved = new Map<string, unknown>();
  for (const key of Object.keys(target)) {
    if (typeof target[key] !== 'function') continue;
    const level = CONSOLE_LEVELS[key];
    const fallback = stderrConsole[key];
    if (!level && typeof fallback !== 'function') continue;
    saved.set(key, target[key]);
    target[key] = level
      ? (...args: unknown[]) => log[level]({ console: key }, format(...args).slice(0, 4000))
      : (fallback as (...args: unknown[]) => unknown).bind(stderrConsole);
  }
  return () => {
    for (const [key, method] of saved) target[key] = method;
  };
}
