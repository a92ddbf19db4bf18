import { cmsConfig } from '@svc/cms/config';
import { crawlConfig } from '@svc/crawl/config';
import { insightConfig } from '@svc/insight/config';
import { composeConfig, loadConfig, type ConfigOf } from '@svc/kit';
import { llmConfig } from '@svc/llm/config';
import { servicesRunBy, type Service } from './services.js';

/**
 * Every service's config slice. Each process validates all of them, whatever it runs, so a bad
 * value stops any start; the rules between variables are checked for the services it runs.
 */
export const CONFIG_SLICES = [insightConfig, llmConfig, crawlConfig, cmsConfig] as const;

/** Every variable `svc` reads: the platform-wide ones and every slice's. */
export const configSchema = composeConfig(CONFIG_SLICES);

/** The validated configuration of a `svc` process. */
export type Config = ConfigOf<typeof CONFIG_SLICES>;

/**
 * Validates the environment once, at start: every variable, and the rules of the services
 * `service` runs (none without a service). Throws a ConfigError naming every bad variable.
 */
export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env, service?: Service): Config {
  return loadConfig(env, CONFIG_SLICES, { running: service ? servicesRunBy(service) : [] });
}
