import DataLoader from 'dataloader';
import type { SvcContext } from '../context.js';
import { SvcError } from '../errors.js';

/**
 * Entity references resolved in batches: the router asks a subgraph for 50 `Content` or
 * `CrawlJob` references in one `_entities` call, and each `__resolveReference` then runs once per
 * reference. A loader per request and entity type gathers the keys of one tick and hands them to
 * `batch` at once, so 50 references cost one query, not 50. The loader lives as long as the
 * request's context (a WeakMap entry), so nothing is cached across requests, callers or tenants.
 *
 * A reference that cannot be resolved is never a bare null (apollographql/federation#752: the
 * router would then report a non-null violation deep inside the entity, or nothing at all): it
 * is an error at its `_entities` index, which the router moves to the field that referenced it,
 * so the referencing field (nullable wherever an entity can be missing) is null with a reason:
 * ENTITY_NOT_FOUND when the entity does not exist (any more), or the caller's own refusal
 * (FORBIDDEN) when it exists but the caller may not read it.
 */
const loaders = new WeakMap<SvcContext, Map<string, DataLoader<string, unknown>>>();

/** What `batch` may answer for a key besides the entity: a refusal (a FORBIDDEN SvcError) saying the caller may not read it. */
export type ReferenceRefusal = SvcError;

/** The error of a reference nothing was found for: ENTITY_NOT_FOUND naming the type and key. */
export function entityNotFound(type: string, key: string): SvcError {
  return new SvcError('ENTITY_NOT_FOUND', `${type} ${JSON.stringify(key)} does not exist (any more)`, { details: { typename: type, key } });
}

/**
 * A `__resolveReference` for entity `type` keyed by the string `keyOf(reference)`: `batch` gets
 * the request's context and every distinct key of one tick, and returns what it found by key, or
 * a refusal (a FORBIDDEN SvcError) for a key that exists but is not the caller's to read. A key
 * it does not return rejects with ENTITY_NOT_FOUND.
 */
export function batchedReference<R, V>(type: string, keyOf: (reference: R) => string, batch: (ctx: SvcContext, keys: readonly string[]) => Promise<ReadonlyMap<string, V | ReferenceRefusal>>): (reference: R, ctx: SvcContext) => Promise<V> {
  return (reference, ctx) => {
    let byType = loaders.get(ctx);
    if (!byType) loaders.set(ctx, (byType = new Map()));
    let loader = byType.get(type) as DataLoader<string, V> | undefined;
    if (!loader) {
      loader = new DataLoader<string, V>(async (keys) => {
        const found = await batch(ctx, keys);
        return keys.map((key) => found.get(key) ?? entityNotFound(type, key));
      });
      byType.set(type, loader as DataLoader<string, unknown>);
    }
    return loader.load(keyOf(reference));
  };
}
