import type { z } from 'zod';
import type { TokenVerifier } from '../auth.js';
import type { Logger } from '../logger.js';
import type { ConfigRule } from './config-rule.js';
import { workerNameOf, type PlatformConfig } from './platform-config.js';

/** What a slice's variables parse to, beside the platform-wide values. */
export type SliceConfig<Shape extends z.core.$ZodShape> = PlatformConfig & Readonly<z.output<z.ZodObject<Shape>>>;

/** What the process starting a service hands it beside the configuration: what exists only at start. */
export interface ServiceStart {
  /** The configured PostgreSQL, or the embedded PGlite's socket. */
  databaseUrl: string;
  verifier: TokenVerifier;
  /** The service's own logger. */
  log: Logger;
}

/**
 * A service's share of the configuration (Crawlee's configuration shape, one per service): its
 * variables as zod fields with defaults and doc comments, the rules between them, and how the
 * validated values become its start options.
 */
export interface ConfigSlice<Shape extends z.core.$ZodShape = z.core.$ZodShape, Start = never, Options = unknown> {
  readonly variables: z.ZodObject<Shape>;
  readonly rules?: readonly ConfigRule<SliceConfig<Shape>>[];
  fromConfig(config: SliceConfig<Shape>, start: Start): Options;
}

/** Declares a slice; only there for type inference (the config and start types follow from the variables). */
export function defineConfigSlice<Shape extends z.core.$ZodShape, Start extends ServiceStart, Options>(slice: ConfigSlice<Shape, Start, Options>): ConfigSlice<Shape, Start, Options> {
  return slice;
}

/** The options every service takes from the platform-wide variables, with what its start hands it. */
export function serviceOptions(config: PlatformConfig, start: ServiceStart) {
  const { databaseUrl, verifier, log } = start;
  return { databaseUrl, verifier, log, maxBodyBytes: config.SVC_MAX_BODY_BYTES, compiledExecution: config.SVC_SUBGRAPH_COMPILED_EXECUTION, poolMax: config.DB_POOL_MAX, workerName: workerNameOf(config) };
}
