import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@svc/kit';
import type { UsageEntry, UsageFilter, UsageRow } from '../domain/usage.js';

const num = (v: unknown) => Number(v ?? 0);

/** One ledger line (`lease_id`: the budget lease that charged it, if one did); settlements and the sweep write them too. */
export const LEDGER_INSERT = `insert into llm.usage_ledger (id, agent_code, period, kind, requested_model, model, deployment, prompt_tokens, completion_tokens, cost_usd, cached, outcome, request_id, lease_id)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Any number of one lease's ledger lines in one statement: the lines as one JSON array
 * parameter (the {@link UsageEntry} objects as they are), unpacked by PostgreSQL. Bind
 * parameters (`$n`, for kit `nativeSql`): agent code, period, lease id, lines.
 */
export const LEDGER_INSERT_LINES = `insert into llm.usage_ledger (id, agent_code, period, kind, requested_model, model, deployment, prompt_tokens, completion_tokens, cost_usd, cached, outcome, request_id, lease_id)
  select gen_random_uuid(), $1, $2, l.kind, l."requestedModel", l.model, l.deployment, l."promptTokens", l."completionTokens", l."costUsd", l.cached, l.outcome, l."requestId", $3::uuid
    from jsonb_to_recordset($4::jsonb) as l(kind text, "requestedModel" text, model text, deployment text, "promptTokens" int, "completionTokens" int, "costUsd" numeric, cached boolean, outcome text, "requestId" text)`;

export function ledgerValues(agentCode: string, period: string, usage: UsageEntry, leaseId?: string): unknown[] {
  return [randomUUID(), agentCode, period, usage.kind, usage.requestedModel, usage.model ?? null, usage.deployment ?? null, usage.promptTokens, usage.completionTokens, usage.costUsd, usage.cached, usage.outcome, usage.requestId ?? null, leaseId ?? null];
}

/** The usage ledger: what every request cost, and the daily sums read from it. */
export function createUsageStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    async record(agentCode: string, period: string, usage: UsageEntry): Promise<void> {
      await em().execute(LEDGER_INSERT, ledgerValues(agentCode, period, usage));
    },

    /** A request the hard limit refused (kept apart from usage, but on record). */
    async recordRefusal(agentCode: string, period: string, requestId?: string): Promise<void> {
      await em().execute(
        `insert into llm.usage_ledger (id, agent_code, period, kind, requested_model, outcome, request_id) values (?, ?, ?, 'chat', '-', 'refused', ?)`,
        [randomUUID(), agentCode, period, requestId ?? null],
      );
    },

    async daily(filter: UsageFilter): Promise<UsageRow[]> {
      const rows = await em().execute<Record<string, unknown>[]>(
        `select agent_code, coalesce(model, requested_model) as model, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day,
                count(*)::int as requests, sum(prompt_tokens)::int as prompt_tokens, sum(completion_tokens)::int as completion_tokens,
                sum(cost_usd) as cost_usd, sum(case when cached then 1 else 0 end)::int as cache_hits
           from llm.usage_ledger
          where (?::text is null or agent_code = ?) and (?::timestamptz is null or created_at >= ?) and (?::timestamptz is null or created_at < ?)
            and outcome <> 'refused'
          group by 1, 2, 3 order by 3, 1, 2`,
        [filter.agentCode ?? null, filter.agentCode ?? null, filter.from ?? null, filter.from ?? null, filter.to ?? null, filter.to ?? null],
      );
      return rows.map((r) => ({
        agentCode: String(r.agent_code),
        model: String(r.model),
        day: String(r.day),
        requests: num(r.requests),
        promptTokens: num(r.prompt_tokens),
        completionTokens: num(r.completion_tokens),
        costUsd: Math.round(num(r.cost_usd) * 1e6) / 1e6,
        cacheHits: num(r.cache_hits),
      }));
    },
  };
}

export type UsageStore = ReturnType<typeof createUsageStore>;
