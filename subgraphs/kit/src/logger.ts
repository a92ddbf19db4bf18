import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stderr, always: stdout stays free for protocols (MCP stdio) and every
 * service logs the same way. Secrets and message bodies are redacted by path.
 */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: options.name ? { svc: options.name } : {},
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: ['authorization', 'headers.authorization', 'password', '*.password', 'token', '*.token', 'accessToken', 'apiKey', '*.apiKey', 'secret'],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}
