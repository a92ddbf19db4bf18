import type { Logger, PurgeChannel } from '@svc/kit';

/** A whole response as the bridge answers it (bridge.ts's RestResponse without a stream; defined here, since bridge.ts imports this module and imports run one way). */
export interface CachedResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

export interface CacheEntry {
  response: CachedResponse;
  etag?: string;
  /** Surrogate keys the response is tagged with: a purge of any of them drops it. */
  tags: readonly string[];
  expiresAt: number;
  bytes: number;
}

export interface ResponseCacheOptions {
  /** Where the content service announces purges (kit purge-channel.ts). */
  channel: PurgeChannel;
  log: Logger;
  /** Default 2,000 responses. */
  maxEntries?: number;
  /** Default 32 MiB of bodies and headers. */
  maxBytes?: number;
}

/**
 * Responses of cacheable routes (a route with `cache`: content delivery) kept in the bridge's
 * memory for their shared-cache lifetime (s-maxage), so a hit costs no call to the router and
 * the subgraph. They are kept coherent, not merely fresh: a purge announced by the content
 * service (after every publish, unpublish, restore and on-demand purge) drops every response
 * tagged with its surrogate key, and while announcements may be missed (the Redis subscription
 * is down) nothing is kept or served. A response whose call began before a purge is not kept,
 * since it may hold what the purge removed.
 */
export function createResponseCache(options: ResponseCacheOptions) {
  const maxEntries = options.maxEntries ?? 2000;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const entries = new Map<string, CacheEntry>();
  const byTag = new Map<string, Set<string>>();
  let bytes = 0;
  let heard = false;
  /** Counts purges and lost subscriptions: a call that saw another generation begin must not be kept. */
  let generation = 0;

  function drop(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.bytes;
    for (const tag of entry.tags) {
      const keys = byTag.get(tag);
      keys?.delete(key);
      if (keys && !keys.size) byTag.delete(tag);
    }
  }

  function clear(): void {
    entries.clear();
    byTag.clear();
    bytes = 0;
  }

  const unsubscribe = options.channel.subscribe({
    purge(tags) {
      generation++;
      for (const tag of tags) for (const key of [...(byTag.get(tag) ?? [])]) drop(key);
    },
    heard(now) {
      generation++;
      heard = now;
      if (!now) clear();
    },
  });

  return {
    /** The current generation: pass it to `put` for a call that begins now. */
    generation: () => generation,

    /** A kept response that is still fresh. */
    get(key: string, now = Date.now()): CacheEntry | undefined {
      if (!heard) return undefined;
      const entry = entries.get(key);
      if (entry && entry.expiresAt <= now) {
        drop(key);
        return undefined;
      }
      return entry;
    },

    /** Keeps `response` for `maxAgeSeconds` unless a purge came since `since` (a generation), or it cannot be purged (no tags). */
    put(key: string, since: number, response: CachedResponse, meta: { etag?: string; tags: readonly string[]; maxAgeSeconds: number }, now = Date.now()): boolean {
      if (!heard || since !== generation || meta.maxAgeSeconds <= 0 || !meta.tags.length || response.status !== 200) return false;
      const size = key.length + (response.body?.length ?? 0) + Object.entries(response.headers).reduce((n, [k, v]) => n + k.length + v.length, 0);
      if (size > maxBytes / 16) return false;
      drop(key);
      while (entries.size >= maxEntries || bytes + size > maxBytes) drop(entries.keys().next().value!);
      entries.set(key, { response, etag: meta.etag, tags: [...meta.tags], expiresAt: now + meta.maxAgeSeconds * 1000, bytes: size });
      bytes += size;
      for (const tag of meta.tags) {
        let keys = byTag.get(tag);
        if (!keys) byTag.set(tag, (keys = new Set()));
        keys.add(key);
      }
      return true;
    },

    get size() {
      return entries.size;
    },

    close(): void {
      unsubscribe();
      clear();
    },
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
