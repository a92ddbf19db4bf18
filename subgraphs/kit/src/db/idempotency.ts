import { Migration } from '@mikro-orm/migrations';
import type { MigrationObject } from '@mikro-orm/core';
import { SvcError, validationError } from '../errors.js';

/**
 * Idempotency keys for mutations that must change something at most once (an approved action
 * executed by a worker that may retry after a crash). Each subgraph has its own
 * `<schema>.idempotent_change` table ({@link idempotentChangeTableSql}); the first call with a key
 * applies the change and records the key in the SAME transaction, a later call with the same
 * key, operation, target and scope changes nothing and answers with the entity's current state,
 * anything else with that key is a 409.
 */

/** 1-200 visible ASCII characters (no spaces, no control characters). */
const KEY = /^[\x21-\x7e]{1,200}$/;

/** The description of every `idempotencyKey` argument in the graph. */
export const IDEMPOTENCY_KEY_DOC =
  'Applies the change at most once: a repeated call with the key changes nothing and returns the current state; the key used for another change is a 409. 1-200 visible ASCII characters.';

/** A keyed call: what it does (`operation`), to what (`target`) and for whom (`scope`). */
export interface IdempotentCall {
  key: string;
  /** The mutation's name, e.g. `publishContent`. */
  operation: string;
  /** What the call addresses: the content id, the agent code, the crawl job id. */
  target: string;
  /** The tenant or site the change belongs to; null when the subgraph has none. */
  scope?: string | null;
}

/** What a transaction-scoped MikroORM EntityManager offers (`em.execute`). */
export interface SqlExecutor {
  execute(sql: string, params: unknown[]): Promise<unknown>;
}

/** The key of a request, checked: undefined without one, 422 naming `idempotencyKey` when malformed. */
export function checkIdempotencyKey(key: string | null | undefined): string | undefined {
  if (key === null || key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY.test(key)) {
    const shown = typeof key === 'string' && key.length > 40 ? `${JSON.stringify(key.slice(0, 40))}… (${key.length} characters)` : JSON.stringify(key);
    throw validationError([{ pointer: '/idempotencyKey', detail: `idempotencyKey must be 1 to 200 visible ASCII characters (no spaces); got ${shown}` }]);
  }
  return key;
}

/** The DDL of one subgraph's key table, for its migrations. */
export function idempotentChangeTableSql(schema: string): string {
  return `
-- Idempotency keys of applied changes, written in the transaction of the change itself.
create table ${schema}.idempotent_change (
  key text primary key,
  operation text not null,
  target text not null,
  scope text,
  entity_id text not null,
  created_at timestamptz not null default now()
);`;
}

/** The migration named `name` that creates `<schema>.idempotent_change`, for a subgraph's migration list. */
export function idempotentChangeMigration(name: string, schema: string): MigrationObject {
  return {
    name,
    class: class IdempotentChanges extends Migration {
      override up(): void {
        this.addSql(idempotentChangeTableSql(schema));
      }
    },
  };
}

/** A change made at most once per key: `apply` makes it, `replay` answers a repeated call. */
export interface KeyedChange<T> {
  /** Makes the change; returns the result and the id of the entity changed or created. */
  apply(): Promise<{ result: T; entityId: string }>;
  /** The current state of the entity an earlier call with the key changed (nothing changes). */
  replay(entityId: string): Promise<T>;
}

/**
 * Inside a transaction (`tx` must be scoped to it): without a call, just `apply`. With one, takes
 * a transaction-scoped advisory lock on the key (concurrent calls with it wait here until the
 * first commits or rolls back), looks the key up in `<schema>.idempotent_change`, and either
 * replays the earlier change, refuses (409: the key was used for another operation, target or
 * scope), or applies the change and records the key. The lock is taken before anything else
 * the change locks, so keyed calls cannot deadlock on it.
 */
export async function applyOnce<T>(tx: SqlExecutor, schema: string, call: IdempotentCall | undefined, change: KeyedChange<T>): Promise<{ result: T; replayed: boolean }> {
  if (!call) return { result: (await change.apply()).result, replayed: false };
  const table = `${schema}.idempotent_change`;
  await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`${table}:${call.key}`]);
  const rows = (await tx.execute(`select operation, target, scope, entity_id from ${table} where key = ?`, [call.key])) as Record<string, unknown>[];
  const earlier = rows[0];
  if (earlier) {
    const scope = call.scope ?? null;
    if (earlier.operation !== call.operation || earlier.target !== call.target || (earlier.scope ?? null) !== scope) {
      throw new SvcError('CONFLICT', `Idempotency key ${JSON.stringify(call.key)} was already used for another change; use a new key for ${call.operation}`, {
        slug: 'idempotency-key-reused',
        details: { idempotencyKey: call.key },
      });
    }
    return { result: await change.replay(String(earlier.entity_id)), replayed: true };
  }
  const { result, entityId } = await change.apply();
  await tx.execute(`insert into ${table} (key, operation, target, scope, entity_id) values (?, ?, ?, ?, ?)`, [call.key, call.operation, call.target, call.scope ?? null, entityId]);
  return { result, replayed: false };
}
