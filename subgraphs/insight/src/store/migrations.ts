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

export const INSIGHT_MIGRATIONS = [{ name: '0001_accounts', class: Accounts }];
