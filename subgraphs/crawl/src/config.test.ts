import { describe, expect, it } from '@jest/globals';
import { createLogger, createTokenVerifier, loadConfig } from '@svc/kit';
import { crawlConfig } from './config.js';

function startWith(issued?: string) {
  return { databaseUrl: 'postgres://svc@db/svc', verifier: createTokenVerifier({ secret: 's'.repeat(32) }), log: createLogger({ level: 'silent' }), routerUrl: () => 'http://router/graphql', issuedGatewayKey: () => issued };
}

describe('crawlConfig', () => {
  it('turns the variables into the crawl service options', () => {
    const config = loadConfig({ SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1, *.internal', SVC_CRAWL_WORKER: '0', SVC_CRAWL_CONCURRENCY: '2' }, [crawlConfig]);
    const options = crawlConfig.fromConfig(config, startWith());
    expect(options).toMatchObject({ allowPrivateHosts: ['127.0.0.1', '*.internal'], inProcessWorker: false, concurrency: 2, triggerWaitMs: 10_000, lockLifetimeMs: 30_000 });
    expect(options.routerUrl()).toBe('http://router/graphql');
  });

  it('uses SVC_CRAWL_GATEWAY_KEY, else the key the start issued', () => {
    expect(crawlConfig.fromConfig(loadConfig({}, [crawlConfig]), startWith('issued-key')).gatewayKey()).toBe('issued-key');
    const configured = loadConfig({ SVC_CRAWL_GATEWAY_KEY: 'k'.repeat(16) }, [crawlConfig]);
    expect(crawlConfig.fromConfig(configured, startWith('issued-key')).gatewayKey()).toBe('k'.repeat(16));
  });
});
