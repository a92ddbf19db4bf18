#!/usr/bin/env node
import { insightConfig } from '@svc/insight/config';
import { ConfigError, createLogger, isEmbedded, loadConfig, routerUrl } from '@svc/kit';
import { startBanner } from './banner.js';
import { readPassword } from './read-password.js';
import { SERVICES, type Service } from './services.js';
import { startFailureMessage } from './start-failure.js';
import { runUsersCommand, UsageError, USERS_USAGE } from './users-command.js';

/** The configuration once loaded, for the start failure's message. */
let loaded: Readonly<Record<string, unknown>> | undefined;

/** `svc <service>`: one entry for every process of the platform. */
async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'users') {
    if (argv[1] === '--help' || argv[1] === '-h') return void process.stdout.write(`${USERS_USAGE}\n`);
    try {
      // A client of the running platform: only its own variables, without loading every service's code.
      await runUsersCommand(argv.slice(1), loadConfig(process.env, [insightConfig]), { fetch, readPassword, out: (text) => process.stdout.write(`${text}\n`) });
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      const usage = error instanceof UsageError || !!(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
      process.stderr.write(`svc users: ${(error as Error).message}\n${usage ? `${USERS_USAGE}\n` : ''}`);
      process.exitCode = usage ? 2 : 1;
    }
    return;
  }
  const service = (argv[0] ?? 'all') as Service;
  if (argv[0] === '--help' || argv[0] === '-h' || !SERVICES.includes(service)) {
    process.stderr.write(`usage: svc <service> | svc users <command>\n  services: ${SERVICES.join(', ')}\n`);
    process.exitCode = argv[0] === '--help' || argv[0] === '-h' ? 0 : 2;
    return;
  }
  const [{ loadPlatformConfig }, { startPlatform }] = await Promise.all([import('./config.js'), import('./platform.js')]);
  const config = loadPlatformConfig(process.env, service);
  loaded = config;
  if (service === 'crawl-mcp' || service === 'insight-mcp') {
    // A stdio tool server for MCP clients: protocol on stdout, logs on stderr, nothing else.
    const log = createLogger({ level: config.LOG_LEVEL, name: service });
    const mcp = service === 'crawl-mcp'
      ? await (await import('@svc/crawl/mcp/stdio')).runCrawlMcpStdio({
        routerUrl: routerUrl(config),
        token: config.SVC_TOKEN,
        tenantId: config.SVC_TENANT_ID,
        allowPrivateHosts: config.SVC_CRAWL_ALLOW_PRIVATE_HOSTS,
        log,
      })
      : await (await import('@svc/insight/mcp/stdio')).runInsightMcpStdio({ routerUrl: routerUrl(config), token: config.SVC_TOKEN, tenantId: config.SVC_TENANT_ID, log });
    const stop = () => void mcp.close().finally(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.stdin.on('close', stop);
    return;
  }
  if (service === 'all') {
    process.stderr.write(`svc: starting every service${isEmbedded(config) ? ` (embedded PostgreSQL in ${config.SVC_DATA_DIR}/; a first start also seeds the demo shop)` : ''}, usually 5-15 s ...\n`);
  }
  const platform = await startPlatform(config, service);
  // A promise that failed with nobody awaiting it is a defect, logged in full; Node's default
  // (ending the process) would end every tenant's requests with it, for one request's fault.
  process.on('unhandledRejection', (reason) => platform.log.error({ err: reason }, 'unhandled promise rejection (a defect, please report it); the process keeps serving'));
  const banner = startBanner({ service, urls: platform.urls, adminUsername: config.SVC_ADMIN_USERNAME, defaultCredentials: config.SVC_ADMIN_USERNAME === 'admin' && config.SVC_ADMIN_PASSWORD === 'admin' });
  process.stderr.write(`\n${banner}\n`);
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
  else process.stderr.write(`${startFailureMessage(error, loaded)}\n`);
  process.exit(1);
});
