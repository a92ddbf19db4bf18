import type { Logger } from './logger.js';
import { consoleOffStdout } from './stdio-console.js';

/**
 * A protocol server on stdin/stdout (the `svc *-mcp` entries), without depending on the
 * protocol's library: `server` connects to `transport` (an MCP SDK McpServer and
 * StdioServerTransport, say).
 *
 * stdout carries the protocol and nothing else: `console` is rebound off stdout once the server
 * exists (consoleOffStdout), transport errors are logged as warnings, and `close()` (once,
 * however often called) closes the server, then `cleanup`, then restores `console`; the caller
 * exits. A failed connect cleans up and throws.
 */
export interface StdioServing<T> {
  server: { connect(transport: T): Promise<void>; close(): Promise<void> };
  transport: T & { onerror?: ((error: Error) => void) | undefined };
  /** Closes what the server uses (clients, browsers, ...). */
  cleanup(): Promise<void>;
  log: Logger;
  /** Named in the log lines, e.g. "insight MCP server". */
  what: string;
  /** Fields of the "listening" log line (settings worth seeing; never secrets). */
  fields?: Record<string, unknown>;
}

export async function serveOverStdio<T>(options: StdioServing<T>): Promise<{ close(): Promise<void> }> {
  const { server, transport, cleanup, log, what } = options;
  const restoreConsole = consoleOffStdout(log);
  transport.onerror = (error) => log.warn({ err: error }, `${what}: stdio transport error`);
  try {
    await server.connect(transport);
  } catch (error) {
    await cleanup();
    restoreConsole();
    throw error;
  }
  log.info(options.fields ?? {}, `${what} listening on stdio`);
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        try {
          await server.close();
        } catch (error) {
          log.warn({ err: error }, `closing the ${what} failed`);
        }
        await cleanup();
        restoreConsole();
        log.info(`${what} closed`);
      })();
      return closing;
    },
  };
}
