import type { RobotsPolicy } from '../domain/robots.js';

/**
 * In-memory cache of robots.txt policies, one per origin (scheme, host, port: the unit a
 * robots.txt applies to, RFC 9309 2.3). The page fetcher (fetch-page.ts) consults it before
 * every request when a job respects robots.txt.
 *
 * Decisions:
 * - Entries live `ttlMs` (default one hour, well under the 24 hours RFC 9309 2.4 allows), so a
 *   long crawl picks up a changed robots.txt, and a site is asked for it at most once an hour.
 * - An `unreachable` policy (robots.txt answered 429/5xx or could not be fetched: everything
 *   disallowed) lives only `failureTtlMs` (default one minute): long enough not to ask a
 *   struggling site again for every page, short enough that one bad moment does not lock a
 *   site out of a crawl for an hour.
 * - Concurrent lookups of one origin share a single load (the promise is cached), so a burst of
 *   pages from a new site costs one robots.txt request. A load that rejects is not cached.
 * - At most `maxEntries` origins are kept (default 10,000); when full, expired entries are
 *   dropped first, then the oldest.
 * - Time comes from `now` (default `Date.now`), injectable for tests.
 */

export interface RobotsCacheEntry {
  policy: RobotsPolicy;
  /** Why the policy is what it is when that is not obvious (e.g. 'HTTP 503', 'timed out'), for messages. */
  reason?: string;
}

export interface RobotsCacheOptions {
  /** Loads the policy of an origin such as `https://example.com` (or `http://host:8080`). */
  load: (origin: string) => Promise<RobotsCacheEntry>;
  /** How long a policy is kept, in milliseconds; default 3,600,000 (1 h). */
  ttlMs?: number;
  /** How long an `unreachable` policy is kept, in milliseconds; default 60,000 (1 min). */
  failureTtlMs?: number;
  /** Origins kept at most; default 10,000. */
  maxEntries?: number;
  /** Clock in milliseconds; default `Date.now`. */
  now?: () => number;
}

export interface RobotsCache {
  /** The policy of `origin`, loaded when absent or expired. */
  get(origin: string): Promise<RobotsCacheEntry>;
  /** Forgets every origin. */
  clear(): void;
  /** Origins currently cached (loaded or loading). */
  size(): number;
}

interface Slot {
  value: Promise<RobotsCacheEntry>;
  /** When the entry expires; Infinity while the load is in flight. */
  expires: number;
}

export const ROBOTS_CACHE_TTL_MS = 60 * 60 * 1000;
export const ROBOTS_FAILURE_TTL_MS = 60 * 1000;

export function createRobotsCache(options: RobotsCacheOptions): RobotsCache {
  const ttlMs = options.ttlMs ?? ROBOTS_CACHE_TTL_MS;
  const failureTtlMs = options.failureTtlMs ?? ROBOTS_FAILURE_TTL_MS;
  const maxEntries = Math.max(1, options.maxEntries ?? 10_000);
  const now = options.now ?? Date.now;
  const slots = new Map<string, Slot>();

  function makeRoom(): void {
    if (slots.size < maxEntries) return;
    const t = now();
    for (const [origin, slot] of slots) if (slot.expires <= t) slots.delete(origin);
    while (slots.size >= maxEntries) {
      const oldest = slots.keys().next().value as string;
      slots.delete(oldest);
    }
  }

  function get(origin: string): Promise<RobotsCacheEntry> {
    const existing = slots.get(origin);
    if (existing && existing.expires > now()) return existing.value;
    if (existing) slots.delete(origin);
    makeRoom();
    const slot: Slot = { value: undefined as unknown as Promise<RobotsCacheEntry>, expires: Infinity };
    slot.value = Promise.resolve()
      .then(() => options.load(origin))
      .then(
        (entry) => {
          slot.expires = now() + (entry.policy.source === 'unreachable' ? failureTtlMs : ttlMs);
          return entry;
        },
        (error: unknown) => {
          if (slots.get(origin) === slot) slots.delete(origin);
          throw error;
        },
      );
    slots.set(origin, slot);
    return slot.value;
  }

  return {
    get,
    clear: () => slots.clear(),
    size: () => slots.size,
  };
}
