import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stderr, always: stdout stays free for protocols (MCP stdio) and every
 * service logs the same way. Secrets and message bodies are redacted by path. Tests may pass
 * their own destination to read what was logged.
 *
 * `name` is the process's (the svc command: `all`, `graph`, `cms`, …) and is logged as `process`;
 * each service in it logs through a child bound to `svc` (cli/src/platform.ts). Both under `svc`
 * wrote the key twice in one line (`"svc":"all","svc":"cms"`), which JSON readers resolve
 * differently (jq and JSON.parse keep the last, others the first or refuse the line).
 */
export function createLogger(options: { level?: string; name?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: options.name ? { process: options.name } : {},
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['authorization', 'headers.authorization', 'password', '*.password', 'token', '*.token', 'accessToken', 'apiKey', '*.apiKey', 'secret'],
        censor: '[redacted]',
      },
    },
    options.destination ?? pino.destination({ fd: 2, sync: false }),
  );
}
