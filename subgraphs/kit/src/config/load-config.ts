import { z } from 'zod';
import type { ConfigRule } from './config-rule.js';
import type { ConfigSlice } from './config-slice.js';
import { PLATFORM_RULES, platformConfig, type PlatformConfig } from './platform-config.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Any slice, as the loader sees it: variables and rules. */
export type AnyConfigSlice = Pick<ConfigSlice, 'variables' | 'rules'>;

type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;

/** The validated configuration: the platform-wide values and every slice's. */
export type ConfigOf<S extends readonly AnyConfigSlice[]> = PlatformConfig & Readonly<Intersection<z.output<S[number]['variables']>>>;

/** One schema for the platform-wide variables and every slice's; a variable belongs to one slice. */
export function composeConfig(slices: readonly AnyConfigSlice[]): z.ZodObject {
  const shape: Record<string, z.ZodType> = { ...platformConfig.shape };
  for (const slice of slices) {
    for (const [name, field] of Object.entries(slice.variables.shape)) {
      if (name in shape) throw new Error(`${name} is declared twice: a variable belongs to one config slice`);
      shape[name] = field as z.ZodType;
    }
  }
  return z.object(shape);
}

export interface LoadConfigOptions {
  /** The `svc` services this process runs: their rules are checked. None: only the values are. */
  running?: readonly string[];
}

function configError(problems: (readonly [variable: string, message: string])[]): ConfigError {
  return new ConfigError(`Invalid configuration:\n${problems.map(([variable, message]) => `  ${variable}: ${message}`).join('\n')}`);
}

/**
 * Parses the environment once (empty values count as unset), then checks the rules of the
 * services in `running`. Throws a ConfigError naming every bad variable; returns a frozen object.
 */
export function loadConfig<const S extends readonly AnyConfigSlice[] = []>(
  env: NodeJS.ProcessEnv = process.env,
  slices?: S,
  options: LoadConfigOptions = {},
): ConfigOf<S> {
  const relevant = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = composeConfig(slices ?? []).safeParse(relevant);
  if (!parsed.success) throw configError(parsed.error.issues.map((i) => [i.path.join('.'), i.message] as const));
  const config = Object.freeze(parsed.data) as ConfigOf<S>;
  const running = options.running ?? [];
  const rules: readonly ConfigRule<ConfigOf<S>>[] = [...PLATFORM_RULES, ...(slices ?? []).flatMap((slice) => slice.rules ?? [])];
  const broken = rules.filter((rule) => running.length > 0 && (!rule.services || rule.services.some((s) => running.includes(s))) && rule.broken(config));
  if (broken.length) throw configError(broken.map((rule) => [rule.variable, rule.message] as const));
  return config;
}
