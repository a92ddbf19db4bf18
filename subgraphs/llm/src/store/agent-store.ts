import type { MikroORM } from '@svc/kit';
import { ownerOf, type AgentOwner } from '../domain/agent-owner.js';

type Row = { code: string; tenant_id: string | null; tenant_managed: boolean };

/** Who owns each agent (domain/agent-owner.ts). */
export function createAgentStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    /** The agent's owner; undefined for an unknown agent. */
    async owner(code: string): Promise<AgentOwner | undefined> {
      const rows = await em().execute<Row[]>('select code, tenant_id, tenant_managed from llm.agent where code = ?', [code]);
      return rows[0] ? ownerOf(rows[0].tenant_id, rows[0].tenant_managed) : undefined;
    },

    /** Every agent's owner, by code. */
    async owners(): Promise<Map<string, AgentOwner>> {
      const rows = await em().execute<Row[]>('select code, tenant_id, tenant_managed from llm.agent');
      return new Map(rows.map((r) => [r.code, ownerOf(r.tenant_id, r.tenant_managed)]));
    },

    /**
     * Creates the agent for `owner` unless it exists (with `budget`, when given, as its first
     * budget), and answers the owner it has: the caller's when it created it, else the one who did.
     */
    async claim(code: string, owner: AgentOwner, budget?: { monthlyBudgetUsd: number; hardLimitEnabled: boolean }): Promise<AgentOwner> {
      const rows = await em().execute<Row[]>(
        `with created as (
           insert into llm.agent (code, tenant_id, tenant_managed, monthly_budget_usd, hard_limit_enabled) values (?, ?, ?, ?, ?)
           on conflict (code) do nothing returning code, tenant_id, tenant_managed)
         select code, tenant_id, tenant_managed from created
         union all select code, tenant_id, tenant_managed from llm.agent where code = ? and not exists (select 1 from created)`,
        [code, owner.tenantId, owner.kind === 'tenant', budget?.monthlyBudgetUsd ?? 0, budget?.hardLimitEnabled ?? false, code],
      );
      return ownerOf(rows[0]!.tenant_id, rows[0]!.tenant_managed);
    },

    /** Removes an agent that nothing refers to yet (no key, no budget period, no ledger line): one a failed request created. */
    async removeIfBare(code: string): Promise<void> {
      await em().execute(
        `delete from llm.agent a where a.code = ?
           and not exists (select 1 from llm.api_key k where k.agent_code = a.code)
           and not exists (select 1 from llm.budget_period p where p.agent_code = a.code)
           and not exists (select 1 from llm.usage_ledger u where u.agent_code = a.code)`,
        [code],
      );
    },
  };
}

export type AgentStore = ReturnType<typeof createAgentStore>;
