import DataLoader from 'dataloader';
import type { SvcContext } from '../context.js';

/**
 * Entity references resolved in batches: the router asks a subgraph for 50 `Content` or
 * `CrawlJob` references in one `_entities` call, and each `__resolveReference` then runs once per
 * reference. A loader per request and entity type gathers the keys of one tick and hands them to
 * `batch` at once, so 50 references cost one query, not 50. The loader lives as long as the
 * request's context (a WeakMap entry), so nothing is cached across requests, callers or tenants.
 */
const loaders = new WeakMap<SvcContext, Map<string, DataLoader<string, unknown>>>();

/**
 * A `__resolveReference` for entity `type` keyed by the string `keyOf(reference)`: `batch` gets
 * the request's context and every distinct key of one tick, and returns what it found by key
 * (a key it does not return resolves to null: not found, or not the caller's).
 */
export function batchedReference<R, V>(type: string, keyOf: (reference: R) => string, batch: (ctx: SvcContext, keys: readonly string[]) => Promise<ReadonlyMap<string, V>>): (reference: R, ctx: SvcContext) => Promise<V | null> {
  return (reference, ctx) => {
    let byType = loaders.get(ctx);
    if (!byType) loaders.set(ctx, (byType = new Map()));
    let loader = byType.get(type) as DataLoader<string, V | null> | undefined;
    if (!loader) {
      loader = new DataLoader<string, V | null>(async (keys) => {
        const found = await batch(ctx, keys);
        return keys.map((key) => found.get(key) ?? null);
      });
      byType.set(type, loader as DataLoader<string, unknown>);
    }
    return loader.load(keyOf(reference));
  };
}
