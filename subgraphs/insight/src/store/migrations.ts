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

export const INSIGHT_MIGRATIONS = [
  { name: '0001_accounts', class: Accounts },
  { name: '0002_metrics', class: Metrics },
];
