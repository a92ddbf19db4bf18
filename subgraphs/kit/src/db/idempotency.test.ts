import { describe, expect, it } from '@jest/globals';
import { SvcError } from '../errors.js';
import { thrown } from '../testing/thrown.js';
import { applyOnce, checkIdempotencyKey, idempotentChangeMigration, idempotentChangeTableSql, type IdempotentCall, type SqlExecutor } from './idempotency.js';

/** A transaction over an in-memory `idempotent_change` table that logs every statement. */
function fakeTx(table = new Map<string, Record<string, unknown>>()) {
  const statements: string[] = [];
  const tx: SqlExecutor = {
    async execute(sql, params) {
      statements.push(sql.split(' ')[0]!.toLowerCase() + (sql.includes('pg_advisory_xact_lock') ? ' lock' : ''));
      if (sql.includes('pg_advisory_xact_lock')) return [];
      if (sql.startsWith('select')) return table.has(params[0] as string) ? [table.get(params[0] as string)] : [];
      const [key, operation, target, scope, entity_id] = params;
      table.set(key as string, { operation, target, scope, entity_id });
      return [];
    },
  };
  return { tx, table, statements };
}

const call: IdempotentCall = { key: 'action-1', operation: 'publishContent', target: 'c1' };

describe('checkIdempotencyKey', () => {
  it('passes absent keys and 1-200 visible ASCII characters', () => {
    expect(checkIdempotencyKey(undefined)).toBeUndefined();
    expect(checkIdempotencyKey(null)).toBeUndefined();
    expect(checkIdempotencyKey('a')).toBe('a');
    expect(checkIdempotencyKey('~'.repeat(200))).toBe('~'.repeat(200));
    expect(checkIdempotencyKey('action:0f8e-4c1d/retry#2')).toBe('action:0f8e-4c1d/retry#2');
  });

  it.each([[''], ['x'.repeat(201)], ['has space'], ['tab\t'], ['é'], ['line\n']])('refuses %j with a 422 naming idempotencyKey', (key) => {
    const error = thrown(() => checkIdempotencyKey(key));
    expect(error.status).toBe(422);
    expect(error.extensions.errors).toEqual([{ pointer: '/idempotencyKey', detail: expect.stringContaining('idempotencyKey must be') }]);
  });
});

describe('applyOnce', () => {
  it('without a call just applies, touching no key table', async () => {
    const { tx, statements } = fakeTx();
    const outcome = await applyOnce(tx, 'cms', undefined, { apply: async () => ({ result: 'new', entityId: 'c1' }), replay: async () => 'old' });
    expect(outcome).toEqual({ result: 'new', replayed: false });
    expect(statements).toEqual([]);
  });

  it('locks, looks up, applies and records a new key; then replays it without applying', async () => {
    const { tx, table, statements } = fakeTx();
    let applied = 0;
    const change = { apply: async () => ({ result: `v${++applied}`, entityId: 'e1' }), replay: async (id: string) => `current of ${id}` };
    expect(await applyOnce(tx, 'cms', call, change)).toEqual({ result: 'v1', replayed: false });
    expect(statements).toEqual(['select lock', 'select', 'insert']);
    expect(table.get('action-1')).toEqual({ operation: 'publishContent', target: 'c1', scope: null, entity_id: 'e1' });
    expect(await applyOnce(tx, 'cms', call, change)).toEqual({ result: 'current of e1', replayed: true });
    expect(applied).toBe(1);
  });

  it.each([
    ['another operation', { ...call, operation: 'updateContentDraft' }],
    ['another target', { ...call, target: 'c2' }],
    ['another scope (tenant)', { ...call, scope: 'globex' }],
  ])('refuses a used key for %s with a 409 naming the key', async (_, other) => {
    const { tx } = fakeTx();
    const change = { apply: async () => ({ result: 1, entityId: 'e1' }), replay: async () => 0 };
    await applyOnce(tx, 'cms', call, change);
    const error = await applyOnce(tx, 'cms', other, change).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).code).toBe('CONFLICT');
    expect((error as SvcError).message).toContain('"action-1"');
  });

  it('records nothing when the change fails (the transaction rolls back with it)', async () => {
    const { tx, table } = fakeTx();
    await expect(applyOnce(tx, 'cms', call, { apply: async () => Promise.reject(new Error('boom')), replay: async () => 0 })).rejects.toThrow('boom');
    expect(table.size).toBe(0);
  });
});

describe('idempotentChangeTableSql', () => {
  it('creates the key table in the given schema with the key as primary key', () => {
    expect(idempotentChangeTableSql('crawl')).toMatch(/create table crawl\.idempotent_change \(\s+key text primary key/);
  });

  it('is the migration a subgraph lists under its own name', () => {
    const migration = idempotentChangeMigration('0002_idempotent_change', 'llm');
    expect(migration.name).toBe('0002_idempotent_change');
    expect(typeof migration.class).toBe('function');
  });
});
