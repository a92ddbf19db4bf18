import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { ConfigError } from './load-config.js';
import { isEmbedded, type PlatformConfig } from './platform-config.js';

/** A secret that embedded mode generates once and keeps under SVC_DATA_DIR when its variable is unset. */
export interface EmbeddedSecret {
  variable: string;
  /** File name under SVC_DATA_DIR. */
  file: string;
  /** What the log line calls it. */
  what: string;
  generate(): string;
}

export const EMBEDDED_JWT_SECRET: EmbeddedSecret = {
  variable: 'SVC_JWT_SECRET',
  file: 'jwt-secret',
  what: 'a JWT signing secret',
  generate: () => randomBytes(48).toString('base64url'),
};

/**
 * The secret kept under SVC_DATA_DIR, generated on first use. File I/O, so it happens at start,
 * not in `loadConfig`; outside embedded mode the slices' rules already require the variable.
 */
export async function embeddedSecret(config: PlatformConfig, secret: EmbeddedSecret, log: Logger): Promise<string> {
  if (!isEmbedded(config)) throw new ConfigError(`${secret.variable} is required outside embedded mode`);
  const path = join(config.SVC_DATA_DIR, secret.file);
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    const value = secret.generate();
    await mkdir(config.SVC_DATA_DIR, { recursive: true });
    await writeFile(path, `${value}\n`, { mode: 0o600 });
    log.info({ file: path }, `generated ${secret.what} for embedded mode`);
    return value;
  }
}
