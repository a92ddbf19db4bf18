import { Migration } from '@mikro-orm/migrations';

class Accounts extends Migration {
  override up(): void {
    this.addSql(`
create table insight.account (
  id uuid primary key,
  username text not null unique,
  password_hash text not null,
  roles jsonb not null,
  tenants jsonb not null,
  sites jsonb not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);`);
  }
}

/** Metric series (name + labels) and their points; a point per series and time. */
class Metrics extends Migration {
  override up(): void {
    this.addSql(`
create table insight.metric_series (
  id uuid primary key,
  name text not null,
  labels jsonb not null default '{}'::jsonb,
  labels_key text not null,
  unit text,
  created_at timestamptz not null default now(),
  unique (name, labels_key)
);
create index metric_series_labels on insight.metric_series using gin (labels jsonb_path_ops);
create table insight.metric_point (
  series_id uuid not null references insight.metric_series (id) on delete cascade,
  t timestamptz not null,
  value double precision not null,
  primary key (series_id, t)
);`);
  }
}

/**
 * Analysis jobs as durable state machines: the job row, its append-only step log (the SSE
 * stream's event ids are step numbers), and the actions its report proposes with their
 * decisions. A job keeps the requester's authority (roles, tenants, sites) so that the worker
 * reads other services with no more rights than the person who asked.
 */
class Jobs extends Migration {
  override up(): void {
    this.addSql(`
create table insight.job (
  id uuid primary key,
  owner text not null,
  requester_id text not null,
  prompt text not null,
  status text not null default 'PENDING' check (status in ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED')),
  idempotency_key text,
  authority jsonb not null,
  pii_strict boolean not null default false,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  error text,
  report jsonb,
  steps_done int not null default 0,
  current_step text,
  cancel_requested boolean not null default false,
  attempts int not null default 0,
  worker text,
  tokens int not null default 0,
  cost_usd numeric(14, 6) not null default 0,
  unique (owner, idempotency_key)
);
create index job_owner_created on insight.job (owner, created_at desc, id desc);
create index job_created on insight.job (created_at desc, id desc);
create table insight.job_step (
  job_id uuid not null references insight.job (id) on delete cascade,
  seq int not null check (seq >= 1),
  kind text not null,
  title text not null,
  detail text,
  tool_name text,
  tool_call_id text,
  tool_args jsonb,
  result jsonb,
  result_summary text,
  status text,
  started_at timestamptz not null,
  duration_ms int,
  tokens int,
  cost_usd numeric(14, 6),
  created_at timestamptz not null default now(),
  primary key (job_id, seq)
);
create table insight.action (
  id uuid primary key,
  job_id uuid not null references insight.job (id) on delete cascade,
  kind text not null,
  title text not null,
  rationale text not null,
  target_type text not null,
  target_id text not null,
  params jsonb not null,
  params_hash text not null,
  expected_impact jsonb,
  status text not null default 'PROPOSED' check (status in ('PROPOSED', 'APPROVED', 'REJECTED', 'EXPIRED', 'EXECUTED', 'EXECUTION_FAILED')),
  proposed_at timestamptz not null default now(),
  expires_at timestamptz not null,
  reviewed_by text,
  reviewer_subject text,
  review_comment text,
  decided_at timestamptz,
  decision_hash text,
  outcome jsonb,
  executed_at timestamptz,
  execution_attempts int not null default 0
);
create index action_job on insight.action (job_id);
create index action_status on insight.action (status, proposed_at desc);`);
  }
}

/** Reviewer webhooks: one notice per job with proposals, written with its report (an outbox). */
class ReviewNotices extends Migration {
  override up(): void {
    this.addSql(`
create table insight.review_notice (
  job_id uuid primary key references insight.job (id) on delete cascade,
  status text not null default 'PENDING' check (status in ('PENDING', 'DELIVERED', 'FAILED')),
  attempts int not null default 0,
  last_error text,
  next_attempt_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);
create index review_notice_pending on insight.review_notice (next_attempt_at) where status = 'PENDING';`);
  }
}

/**
 * Every analysis object belongs to a tenant: metric series (and through them their points),
 * jobs (and their steps and reports), actions (and their decisions). Existing jobs go to the
 * tenant their requester's token named when it named exactly one, else to `demo`; series had
 * no owner and were only ever the demo shop's or one tenant's, so they go to `demo`. An
 * action records the reviewer's grants, so its execution can never do more than the reviewer
 * could have asked for.
 */
class TenantScope extends Migration {
  override up(): void {
    this.addSql(`
alter table insight.metric_series add column tenant_id text not null default 'demo';
alter table insight.metric_series alter column tenant_id drop default;
alter table insight.metric_series drop constraint metric_series_name_labels_key_key;
alter table insight.metric_series add constraint metric_series_tenant_name_labels unique (tenant_id, name, labels_key);
alter table insight.job add column tenant_id text;
update insight.job set tenant_id = case
  when jsonb_typeof(authority->'tenants') = 'array' and jsonb_array_length(authority->'tenants') = 1 then authority->'tenants'->>0
  else 'demo' end;
alter table insight.job alter column tenant_id set not null;
alter table insight.job drop constraint job_owner_idempotency_key_key;
alter table insight.job add constraint job_tenant_owner_idempotency unique (tenant_id, owner, idempotency_key);
drop index insight.job_owner_created;
drop index insight.job_created;
create index job_tenant_owner_created on insight.job (tenant_id, owner, created_at desc, id desc);
create index job_tenant_created on insight.job (tenant_id, created_at desc, id desc);
alter table insight.action add column tenant_id text;
update insight.action a set tenant_id = j.tenant_id from insight.job j where j.id = a.job_id;
alter table insight.action alter column tenant_id set not null;
alter table insight.action add column reviewer_grants jsonb;
drop index insight.action_status;
create index action_tenant_status on insight.action (tenant_id, status, proposed_at desc);`);
  }
}

/**
 * Accounts an admin manages: disabled accounts, who created one, and when its sessions last ended
 * (republished to every verifier at start); the login throttle's state when there is no Redis.
 */
class AccountAdmin extends Migration {
  override up(): void {
    this.addSql(`
alter table insight.account
  add column disabled_at timestamptz,
  add column created_by text,
  add column sessions_ended_at timestamptz;
create table insight.login_throttle (
  key text primary key,
  attempts int not null,
  next_at timestamptz not null,
  forget_at timestamptz not null
);
create index login_throttle_forget on insight.login_throttle (forget_at);`);
  }
}

/**
 * Proposals say whether they can be undone; tenants configure their operator webhook; an
 * approved EXTERNAL action is handed off through an outbox row written with its state change
 * (one delivery per action, retried, then FAILED as a dead letter).
 */
class ExternalActions extends Migration {
  override up(): void {
    this.addSql(`
alter table insight.action add column undoable boolean, add column undo text;
create table insight.tenant_settings (
  tenant_id text primary key,
  operator_webhook_url text,
  operator_webhook_secret text,
  updated_by text not null,
  updated_at timestamptz not null default now()
);
create table insight.external_delivery (
  action_id uuid primary key references insight.action (id) on delete cascade,
  tenant_id text not null,
  url text not null,
  status text not null default 'PENDING' check (status in ('PENDING', 'DELIVERED', 'FAILED')),
  attempts int not null default 0,
  last_error text,
  next_attempt_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);
create index external_delivery_pending on insight.external_delivery (next_attempt_at) where status = 'PENDING';`);
  }
}

/**
 * What a tenant's metrics mean (one definition per metric name: unit, aggregation, direction,
 * formula, drivers, synonyms, description) and the tenant's events on its timeline (a price
 * change, a campaign, a deploy). The platform's own events are read from the other services at
 * analysis time, not stored here.
 */
class MetricCatalogAndEvents extends Migration {
  override up(): void {
    this.addSql(`
create table insight.metric_definition (
  tenant_id text not null,
  name text not null,
  definition jsonb not null,
  updated_by text not null,
  updated_at timestamptz not null default now(),
  primary key (tenant_id, name)
);
create table insight.timeline_event (
  id uuid primary key,
  tenant_id text not null,
  at timestamptz not null,
  kind text not null,
  title text not null,
  ref text,
  source text not null default 'tenant' check (source in ('tenant', 'platform')),
  created_by text not null,
  created_at timestamptz not null default now()
);
create index timeline_event_tenant_at on insight.timeline_event (tenant_id, at);`);
  }
}

/** A proposal cites the report finding it follows from (index, title and words), null before. */
class ActionFinding extends Migration {
  override up(): void {
    this.addSql('alter table insight.action add column finding jsonb;');
  }
}

/**
 * Session versions (kit session-revocation.ts): every change that ends an account's sessions
 * raises it in the same statement, and tokens carry the one they were signed with. Accounts whose
 * sessions ended before start at 1, so tokens without a version (signed before) end with them.
 */
class SessionVersion extends Migration {
  override up(): void {
    this.addSql(`alter table insight.account add column session_version int not null default 0;
update insight.account set session_version = 1 where sessions_ended_at is not null;`);
  }
}

/**
 * The metric tables keyed by tenant all the way down, so they can be distributed by `tenant_id`
 * (Citus: `create_distributed_table('insight.metric_series', 'tenant_id')` and the points
 * co-located with them) without a query change: a point carries its series' tenant, the keys lead
 * with it, and every metric query names it. The points no longer reference their series by a
 * foreign key: checking it cost PostgreSQL as much as writing the point (19 s of a 1.5 M-point
 * import), and points are only ever written joined to their series; a series' removal deletes
 * its points in the same statement (metric-store.ts `remove`).
 */
class MetricTenantKey extends Migration {
  override up(): void {
    this.addSql(`
alter table insight.metric_point add column tenant_id text;
update insight.metric_point p set tenant_id = s.tenant_id from insight.metric_series s where s.id = p.series_id;
alter table insight.metric_point alter column tenant_id set not null;
alter table insight.metric_point drop constraint metric_point_series_id_fkey;
alter table insight.metric_point drop constraint metric_point_pkey;
alter table insight.metric_series drop constraint metric_series_pkey;
alter table insight.metric_series add primary key (tenant_id, id);
alter table insight.metric_point add primary key (tenant_id, series_id, t);`);
  }
}

/** A proposal's target in the report's words (report/target-name.ts); null on earlier proposals. */
class ActionTargetName extends Migration {
  override up(): void {
    this.addSql('alter table insight.action add column target_name text;');
  }
}

/**
 * What the service learned of a proposal's target in its own subgraph: when it found it gone
 * (service/target-check.ts), and when it last asked (a check is claimed by setting it, so
 * concurrent reads ask once).
 */
class ActionTargetGone extends Migration {
  override up(): void {
    this.addSql('alter table insight.action add column target_gone_at timestamptz, add column target_checked_at timestamptz;');
  }
}

export const INSIGHT_MIGRATIONS = [
  { name: '0001_accounts', class: Accounts },
  { name: '0002_metrics', class: Metrics },
  { name: '0003_jobs', class: Jobs },
  { name: '0004_review_notices', class: ReviewNotices },
  { name: '0005_tenant_scope', class: TenantScope },
  { name: '0006_account_admin', class: AccountAdmin },
  { name: '0007_metric_catalog_and_events', class: MetricCatalogAndEvents },
  { name: '0008_external_actions', class: ExternalActions },
  { name: '0009_action_finding', class: ActionFinding },
  { name: '0010_session_version', class: SessionVersion },
  { name: '0011_metric_tenant_key', class: MetricTenantKey },
  { name: '0012_action_target_name', class: ActionTargetName },
  { name: '0013_action_target_gone', class: ActionTargetGone },
];
