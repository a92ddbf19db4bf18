/**
 * What `svc` prints when the platform cannot start: a port another process holds is the usual
 * first-day failure (a second `npm start`, or another app on 3000), so it is named with the
 * variable that moves it instead of a stack trace; anything else keeps its stack.
 */
export function startFailureMessage(error: unknown, config: Readonly<Record<string, unknown>> | undefined): string {
  const e = error as NodeJS.ErrnoException & { port?: number; address?: string };
  if (e?.code === 'EADDRINUSE' && typeof e.port === 'number') {
    const names = Object.entries(config ?? {})
      .filter(([name, value]) => name.endsWith('_PORT') && name !== 'DB_PORT' && value === e.port)
      .map(([name]) => name);
    const where = `${e.address ?? '127.0.0.1'}:${e.port}`;
    const move = names.length ? `, or start with ${names[0]}=<a free port>` : '';
    return `svc: cannot listen on ${where}: the port is in use${names.length ? ` (${names.join(', ')})` : ''}. Another svc (a second npm start?) or another program holds it: stop it${move}.`;
  }
  return `svc: failed to start: ${(error as Error)?.stack ?? String(error)}`;
}
