import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@svc/kit';
import type { EventSource, TimelineEvent } from '../domain/timeline-event.js';

type Row = Record<string, unknown>;

const toEvent = (r: Row): TimelineEvent => ({
  id: String(r.id),
  at: Number(r.at_ms),
  kind: String(r.kind),
  title: String(r.title),
  ref: (r.ref as string | null) ?? null,
  source: String(r.source) as EventSource,
});

const COLUMNS = `id, (extract(epoch from at) * 1000)::float8 as at_ms, kind, title, ref, source`;

/** A tenant's events on its timeline, in the `insight` schema; every query is within one tenant. */
export function createEventStore(orm: MikroORM) {
  return {
    async add(tenantId: string, by: string, e: { at: number; kind: string; title: string; ref?: string | undefined }): Promise<TimelineEvent> {
      const rows = await orm.em.fork().execute<Row[]>(
        `insert into insight.timeline_event (id, tenant_id, at, kind, title, ref, source, created_by)
         values (?, ?, to_timestamp(? / 1000.0), ?, ?, ?, 'tenant', ?) returning ${COLUMNS}`,
        [randomUUID(), tenantId, e.at, e.kind, e.title, e.ref ?? null, by],
      );
      return toEvent(rows[0]!);
    },

    /** Events in [from, to), oldest first, at most `limit`, of one kind when given. */
    async between(tenantId: string, from: number, to: number, limit: number, kind?: string): Promise<TimelineEvent[]> {
      const rows = await orm.em.fork().execute<Row[]>(
        `select ${COLUMNS} from insight.timeline_event
          where tenant_id = ? and at >= to_timestamp(? / 1000.0) and at < to_timestamp(? / 1000.0) and (?::text is null or kind = ?)
          order by at, id limit ?`,
        [tenantId, from, to, kind ?? null, kind ?? null, limit],
      );
      return rows.map(toEvent);
    },
  };
}

export type EventStore = ReturnType<typeof createEventStore>;
