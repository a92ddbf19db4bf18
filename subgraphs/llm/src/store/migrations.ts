import { Migration } from '@mikro-orm/migrations';
import { idempotentChangeMigration } from '@svc/kit';

class Gateway extends Migration {
  override up(): void {
    this.addSql(`
create table llm.agent (
  code text primary key,
  monthly_budget_usd numeric(18, 6) not null default 0,
  hard_limit_enabled boolean not null default false,
  alert_webhook_url text,
  alert_threshold_percent numeric(5, 2) not null default 80,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create table llm.api_key (
  id uuid primary key,
  agent_code text not null references llm.agent (code),
  name text not null,
  key_hash text not null unique,
  key_prefix text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
-- One row per agent and month: spent money and money held by in-flight requests.
create table llm.budget_period (
  agent_code text not null references llm.agent (code),
  period text not null,
  spent_usd numeric(18, 8) not null default 0 check (spent_usd >= 0),
  reserved_usd numeric(18, 8) not null default 0 check (reserved_usd >= 0),
  primary key (agent_code, period)
);
-- Held money per request; a crash leaves rows that the sweeper releases after expires_at.
create table llm.reservation (
  id uuid primary key,
  agent_code text not null,
  period text not null,
  amount_usd numeric(18, 8) not null,
  request_id text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index reservation_expires on llm.reservation (expires_at);
create table llm.usage_ledger (
  id uuid primary key,
  agent_code text not null,
  period text not null,
  kind text not null check (kind in ('chat', 'embedding')),
  requested_model text not null,
  model text,
  deployment text,
  prompt_tokens int not null default 0,
  completion_tokens int not null default 0,
  cost_usd numeric(18, 8) not null default 0,
  cached boolean not null default false,
  outcome text not null check (outcome in ('ok', 'error', 'aborted', 'refused')),
  request_id text,
  created_at timestamptz not null default now()
);
create index usage_ledger_agent_day on llm.usage_ledger (agent_code, created_at);
-- Budget alerts: at most one per (agent, period, event).
create table llm.alert_event (
  agent_code text not null,
  period text not null,
  event text not null check (event in ('THRESHOLD_CROSSED', 'HARD_LIMIT_REACHED')),
  payload jsonb not null,
  delivery_status text not null default 'PENDING' check (delivery_status in ('PENDING', 'DELIVERED', 'FAILED', 'NONE')),
  attempts int not null default 0,
  last_error text,
  occurred_at timestamptz not null default now(),
  primary key (agent_code, period, event)
);
`);
  }
}

/**
 * Settlement follows the answer: a hold whose request never settled (its process died) is
 * charged in full by the sweep, recorded as `unsettled` so an admin sees the over-charge.
 */
class UnsettledOutcome extends Migration {
  override up(): void {
    this.addSql(`
alter table llm.usage_ledger drop constraint if exists usage_ledger_outcome_check;
alter table llm.usage_ledger add constraint usage_ledger_outcome_check check (outcome in ('ok', 'error', 'aborted', 'refused', 'unsettled'));`);
  }
}

/** Budget leases: a slice of an agent's period budget held by one gateway instance. */
class BudgetLeases extends Migration {
  override up(): void {
    this.addSql(`
create table llm.budget_lease (
  id uuid primary key,
  agent_code text not null,
  period text not null,
  instance text not null,
  amount_usd numeric(18, 8) not null check (amount_usd >= 0),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index budget_lease_expires on llm.budget_lease (expires_at);`);
  }
}

/** Rate limits per agent and per key (null: none): requests and tokens per minute, requests in flight. */
class RateLimits extends Migration {
  override up(): void {
    this.addSql(`
alter table llm.agent add column rpm_limit int check (rpm_limit >= 0), add column tpm_limit bigint check (tpm_limit >= 0), add column concurrency_limit int check (concurrency_limit >= 0);
alter table llm.api_key add column rpm_limit int check (rpm_limit >= 0), add column tpm_limit bigint check (tpm_limit >= 0), add column concurrency_limit int check (concurrency_limit >= 0);`);
  }
}

/** Fencing: each ledger line names the budget lease that charged it (settlements and the sweep's unsettled lines). */
class LeaseFencing extends Migration {
  override up(): void {
    this.addSql(`alter table llm.usage_ledger add column lease_id uuid;
create index usage_ledger_lease on llm.usage_ledger (lease_id) where lease_id is not null;`);
  }
}

/**
 * Agents have owners (domain/agent-owner.ts): tenant_id null is the platform's; a tenant's own
 * agent has tenant_managed; a platform agent's share for one tenant has tenant_id without it.
 * Agents that existed before were created with the master key or a platform admin's token:
 * they stay the platform's.
 */
class AgentOwner extends Migration {
  override up(): void {
    this.addSql(`alter table llm.agent add column tenant_id text, add column tenant_managed boolean not null default false;
alter table llm.agent add constraint agent_tenant_managed_has_tenant check (not tenant_managed or tenant_id is not null);
create index agent_tenant on llm.agent (tenant_id) where tenant_id is not null;`);
  }
}

export const LLM_MIGRATIONS = [
  { name: '0001_gateway', class: Gateway },
  idempotentChangeMigration('0002_idempotent_change', 'llm'),
  { name: '0003_unsettled_outcome', class: UnsettledOutcome },
  { name: '0004_budget_leases', class: BudgetLeases },
  { name: '0005_rate_limits', class: RateLimits },
  { name: '0006_lease_fencing', class: LeaseFencing },
  { name: '0007_agent_owner', class: AgentOwner },
];
