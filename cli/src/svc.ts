#!/usr/bin/env node
import { ConfigError, loadConfig } from '@svc/kit';
import { SERVICES, startPlatform, type Service } from './platform.js';

/** `svc <service>`: one entry for every process of the platform. */
async function main(argv: string[]): Promise<void> {
  const service = (argv[0] ?? 'all') as Service;
  if (argv[0] === '--help' || argv[0] === '-h' || !SERVICES.includes(service)) {
    process.stderr.write(`usage: svc <service>\n  services: ${SERVICES.join(', ')}\n`);
    process.exitCode = argv[0] === '--help' || argv[0] === '-h' ? 0 : 2;
    return;
  }
  const config = loadConfig();
  const platform = await startPlatform(config, service);
  const lines = Object.entries(platform.urls).map(([name, url]) => `  ${name.padEnd(8)} ${url}`);
  if (platform.urls.bridge) lines.push(`  apidocs  ${platform.urls.bridge}/apidocs-ui.html`);
  if (platform.urls.router) lines.push(`  graphiql ${platform.urls.router.replace(/\/graphql$/, '/')}`);
  process.stderr.write(`\nSvc Platform (${service}) is up:\n${lines.join('\n')}\n\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    platform.log.info({ signal }, 'shutting down');
    setTimeout(() => {
      platform.log.error('shutdown did not finish within 30 s; exiting anyway');
      process.exit(1);
    }, 30_000).unref();
    platform.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`svc: ${error.message}\n`);
  else process.stderr.write(`svc: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
