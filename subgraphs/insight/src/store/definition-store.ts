import type { MikroORM } from '@svc/kit';
import type { MetricDefinition, StoredDefinition } from '../domain/metric-definition.js';

type Row = Record<string, unknown>;
/** What `execute` needs: the ORM's entity manager or one inside a transaction. */
type Executor = { execute<T>(sql: string, params?: unknown[]): Promise<T> };

const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
const toDefinition = (r: Row): StoredDefinition => ({
  name: String(r.name),
  definition: json<MetricDefinition>(r.definition),
  updatedAt: new Date(String(r.updated_at)),
  updatedBy: String(r.updated_by),
});

const UPSERT = `
insert into insight.metric_definition (tenant_id, name, definition, updated_by, updated_at)
values (?, ?, ?::jsonb, ?, now())
on conflict (tenant_id, name) do update set definition = excluded.definition, updated_by = excluded.updated_by, updated_at = now()
returning name, definition, updated_by, updated_at`;

/** Writes (replaces) definitions with `em`, so the ingest can write them in its own transaction. */
export async function upsertDefinitions(em: Executor, tenantId: string, by: string, definitions: readonly { name: string; definition: MetricDefinition }[]): Promise<StoredDefinition[]> {
  const out: StoredDefinition[] = [];
  for (const d of definitions) {
    const [row] = await em.execute<Row[]>(UPSERT, [tenantId, d.name, JSON.stringify(d.definition), by]);
    out.push(toDefinition(row!));
  }
  return out;
}

/** Per-tenant metric definitions in the `insight` schema; one per metric name, replaced as a whole. */
export function createDefinitionStore(orm: MikroORM) {
  return {
    async put(tenantId: string, by: string, name: string, definition: MetricDefinition): Promise<StoredDefinition> {
      const [stored] = await upsertDefinitions(orm.em.fork(), tenantId, by, [{ name, definition }]);
      return stored!;
    },

    async get(tenantId: string, name: string): Promise<StoredDefinition | undefined> {
      const rows = await orm.em.fork().execute<Row[]>('select name, definition, updated_by, updated_at from insight.metric_definition where tenant_id = ? and name = ?', [tenantId, name]);
      return rows[0] ? toDefinition(rows[0]) : undefined;
    },

    /** Every definition of the tenant, by name. */
    async list(tenantId: string): Promise<StoredDefinition[]> {
      const rows = await orm.em.fork().execute<Row[]>('select name, definition, updated_by, updated_at from insight.metric_definition where tenant_id = ? order by name', [tenantId]);
      return rows.map(toDefinition);
    },

    /** True when the tenant has declared nothing yet (the demo's definitions are seeded only then). */
    async isEmpty(tenantId: string): Promise<boolean> {
      const rows = await orm.em.fork().execute<Row[]>('select 1 from insight.metric_definition where tenant_id = ? limit 1', [tenantId]);
      return rows.length === 0;
    },
  };
}

export type DefinitionStore = ReturnType<typeof createDefinitionStore>;
