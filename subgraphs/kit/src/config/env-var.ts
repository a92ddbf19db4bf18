import { z } from 'zod';

/**
 * Zod fields for environment variables shared by the config slices. Every value arrives as a
 * string (empty ones are dropped before parsing, so they read as unset).
 */
export const envVar = {
  /** A TCP port; 0 picks a free one. */
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  /** A comma-separated list, entries trimmed, empty ones dropped; unset: `fallback`. */
  list: (fallback: readonly string[] = []) =>
    z
      .string()
      .optional()
      .transform((v) => (v === undefined ? [...fallback] : v.split(',').map((s) => s.trim()).filter(Boolean))),
  /** A flag: true, false, 1 or 0; unset: `fallback`. */
  flag: (fallback: boolean) => z.enum(['true', 'false', '1', '0']).default(fallback ? 'true' : 'false').transform((v) => v === 'true' || v === '1'),
  /** An http(s) URL. */
  httpUrl: () => z.url({ protocol: /^https?$/ }),
};
