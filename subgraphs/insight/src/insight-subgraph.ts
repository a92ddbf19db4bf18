import { buildSubgraphSdl, createSubgraphServer, openDatabase, type Logger, type RunningServer, type SchemaParts, type TokenVerifier } from '@svc/kit';
import { AuthResolver } from './schema/auth-resolver.js';
import { createAccountService } from './service/account-service.js';
import { INSIGHT_ENTITIES } from './store/entities.js';
import { INSIGHT_MIGRATIONS } from './store/migrations.js';

export interface InsightOptions {
  databaseUrl: string;
  verifier: TokenVerifier;
  log: Logger;
  jwtSecret?: string;
  tokenTtlSeconds: number;
  adminUsername: string;
  adminPassword: string;
  maxBodyBytes: number;
  poolMax: number;
}

const parts = (instances: object[] = []): SchemaParts => ({ resolvers: [AuthResolver], instances });

export async function insightSdl(): Promise<string> {
  return (await buildSubgraphSdl(parts())).sdl;
}

/** The analysis subgraph. So far it owns accounts and login; analysis jobs build on it. */
export async function startInsight(options: InsightOptions, port: number, host: string): Promise<{ server: RunningServer; close(): Promise<void> }> {
  const { log } = options;
  const orm = await openDatabase({ url: options.databaseUrl, schema: 'insight', entities: INSIGHT_ENTITIES, migrations: INSIGHT_MIGRATIONS, poolMax: options.poolMax, log });
  const accounts = createAccountService({ orm, log, jwtSecret: options.jwtSecret, tokenTtlSeconds: options.tokenTtlSeconds });
  await accounts.ensureAdmin(options.adminUsername, options.adminPassword);
  const { schema } = await buildSubgraphSdl(parts([new AuthResolver(accounts)]));
  const server = await createSubgraphServer({
    name: 'insight',
    schema,
    log,
    verifier: options.verifier,
    maxBodyBytes: options.maxBodyBytes,
    publicFields: ['issueAccessToken'],
    ready: async () => {
      await orm.em.fork().execute('select 1');
    },
  }).listen(port, host);
  return {
    server,
    async close() {
      await server.close();
      await orm.close();
    },
  };
}
